/**
 * One HTTP request over a daemon's unix socket, answered synchronously: for the helpers that run
 * inside synchronous code (`list(sandbox)` in a polled assertion, `sandbox.cleanup()` in a finally).
 * They used to run the CLI for it (`pmfx list --json`, `pmfx kill`), ~0.1–0.2 s of CPU per call for
 * Node's start-up; the CLI's own behaviour is tested by the tests of those commands.
 *
 * A worker thread makes the request while this thread waits on a shared flag (Atomics.wait); the
 * answer comes back through a message port read synchronously (receiveMessageOnPort).
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads"

export type SyncReply =
  | { readonly ok: true; readonly status: number; readonly text: string }
  | { readonly ok: false; readonly error: string }

const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads")
const http = require("node:http")
parentPort.on("message", ({ socket, method, path, timeoutMs, flag, port }) => {
  let done = false
  const answer = (reply) => {
    if (done) return
    done = true
    port.postMessage(reply)
    port.close()
    Atomics.store(flag, 0, 1)
    Atomics.notify(flag, 0)
  }
  const request = http.request({ socketPath: socket, path, method, agent: false, headers: { host: "pmfx" } }, (response) => {
    const chunks = []
    response.on("data", (chunk) => chunks.push(chunk))
    response.on("error", (error) => answer({ ok: false, error: String(error) }))
    response.on("end", () => answer({ ok: true, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
  })
  request.setTimeout(timeoutMs, () => request.destroy(new Error("no answer within " + timeoutMs + " ms")))
  request.on("error", (error) => answer({ ok: false, error: String(error) }))
  request.end()
})
`

let worker: Worker | undefined

/** Sends `method path` to the daemon on `socket` and blocks until it answers, fails or times out. */
export const requestSync = (socket: string, method: string, path: string, timeoutMs = 10_000): SyncReply => {
  if (worker === undefined) {
    worker = new Worker(WORKER_SOURCE, { eval: true })
    // It never keeps the test process alive.
    worker.unref()
  }
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  worker.postMessage({ socket, method, path, timeoutMs, flag, port: port2 }, [port2])
  // The worker's own timeout answers first; this one only guards against a dead worker.
  const waited = Atomics.wait(flag, 0, 0, timeoutMs + 5_000)
  const message = receiveMessageOnPort(port1)
  port1.close()
  if (message === undefined) return { ok: false, error: `no answer from the request worker (${waited})` }
  return message.message as SyncReply
}

/** Blocks this thread for `ms` (between two looks at a condition that is polled synchronously). */
export const pauseSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
