/**
 * Runs a program from a small helper process instead of from the test's own, synchronously
 * (`spawnSyncSmall`, like `spawnSync`) or not (`spawnSmall`). Node spawns by forking, and a fork
 * copies the page tables of its parent: a vitest fork holds ~400 MB after a few files, and each
 * `spawnSync` of the CLI from it cost ~13 ms of its CPU and much more wall time (measured: 15 ms a
 * spawn from a 44 MB process, 220 ms from a 465 MB one, on the loaded 2-core machine), plus a
 * copy-on-write fault for each page it wrote afterwards. The helper is a plain Node process of
 * ~40 MB, started once per vitest fork; it runs each program with the arguments, folder,
 * environment and timeout asked (SIGTERM when the time is up, as `spawnSync` does), stdin closed,
 * and answers with the exit code, the signal and both outputs. It ends when the fork does (its
 * stdin closes), killing what it still runs.
 *
 * Synchronous calls wait as test/support/syncRequest.ts does: a worker thread talks to the helper
 * while this thread waits on a shared flag, and reads the answer from a message port.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads"

export interface SmallSpawnRequest {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly timeoutMs: number
}

export interface SmallSpawnResult {
  /** The exit code, or null when a signal ended it (or it could not start). */
  readonly status: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  /** Why it could not be started or run, if so. */
  readonly error: string | undefined
}

/** The helper process: one JSON request per line on stdin, one JSON answer per line on stdout. */
const HELPER_SOURCE = `
const { spawn } = require("node:child_process")
const running = new Set()
let buffered = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  buffered += chunk
  let end
  while ((end = buffered.indexOf("\\n")) >= 0) {
    const line = buffered.slice(0, end)
    buffered = buffered.slice(end + 1)
    if (line !== "") run(JSON.parse(line))
  }
})
process.stdin.on("end", () => {
  for (const child of running) child.kill("SIGKILL")
  process.exit(0)
})
const answer = (reply) => process.stdout.write(JSON.stringify(reply) + "\\n")
const run = ({ id, file, args, cwd, env, timeoutMs }) => {
  let child
  try {
    child = spawn(file, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] })
  } catch (error) {
    return answer({ id, status: null, signal: null, stdout: "", stderr: "", error: String(error) })
  }
  running.add(child)
  const out = []
  const err = []
  let error
  child.stdout.on("data", (chunk) => out.push(chunk))
  child.stderr.on("data", (chunk) => err.push(chunk))
  child.stdin.on("error", () => {})
  child.stdin.end()
  const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs)
  let answered = false
  const end = (status, signal) => {
    if (answered) return
    answered = true
    clearTimeout(timer)
    running.delete(child)
    answer({ id, status, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), error })
  }
  child.on("error", (e) => {
    error = String(e)
    // It never started: no close will come.
    if (child.pid === undefined) end(null, null)
  })
  child.on("close", (code, signal) => end(code, signal))
}
`

/** The worker thread: starts the helper, forwards requests, hands each answer back on its port. */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads")
const { spawn } = require("node:child_process")
const helper = spawn(process.execPath, ["-e", ${JSON.stringify(HELPER_SOURCE)}], {
  stdio: ["pipe", "pipe", "inherit"],
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }
})
const waiting = new Map()
let nextId = 0
let buffered = ""
const fail = (reason) => {
  for (const { port, flag } of waiting.values()) deliver(port, flag, { status: null, signal: null, stdout: "", stderr: "", error: reason })
  waiting.clear()
}
const deliver = (port, flag, reply) => {
  port.postMessage(reply)
  port.close()
  if (flag !== undefined) {
    Atomics.store(flag, 0, 1)
    Atomics.notify(flag, 0)
  }
}
helper.on("error", (error) => fail("the spawn helper failed: " + error))
helper.on("exit", (code, signal) => fail("the spawn helper exited (" + (signal ?? code) + ")"))
helper.stdout.setEncoding("utf8")
helper.stdout.on("data", (chunk) => {
  buffered += chunk
  let end
  while ((end = buffered.indexOf("\\n")) >= 0) {
    const { id, ...reply } = JSON.parse(buffered.slice(0, end))
    buffered = buffered.slice(end + 1)
    const pending = waiting.get(id)
    if (pending === undefined) continue
    waiting.delete(id)
    deliver(pending.port, pending.flag, reply)
  }
})
parentPort.on("message", ({ request, port, flag }) => {
  const id = nextId++
  waiting.set(id, { port, flag })
  helper.stdin.write(JSON.stringify({ id, ...request }) + "\\n")
})
`

let worker: Worker | undefined

const theWorker = (): Worker => {
  if (worker === undefined) {
    worker = new Worker(WORKER_SOURCE, { eval: true })
    // Neither it nor its helper keeps the test process alive; the helper ends with the process.
    worker.unref()
  }
  return worker
}

/** Runs a program from the helper and blocks until it has ended (as `spawnSync` does). */
export const spawnSyncSmall = (request: SmallSpawnRequest): SmallSpawnResult => {
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  theWorker().postMessage({ request, port: port2, flag }, [port2])
  // The helper's own timeout ends the program first; this one only guards against a dead helper.
  const waited = Atomics.wait(flag, 0, 0, request.timeoutMs + 10_000)
  const message = receiveMessageOnPort(port1)
  port1.close()
  if (message === undefined)
    return { status: null, signal: null, stdout: "", stderr: "", error: `no answer from the spawn helper (${waited})` }
  return message.message as SmallSpawnResult
}

/** Runs a program from the helper without blocking; resolves once it has ended. */
export const spawnSmall = (request: SmallSpawnRequest): Promise<SmallSpawnResult> =>
  new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel()
    port1.once("message", (reply: SmallSpawnResult) => {
      port1.close()
      resolve(reply)
    })
    theWorker().postMessage({ request, port: port2 }, [port2])
  })
