/**
 * Talking to the daemon's TCP listener (`PUT /daemon/web`, docs/api.md): a free port to open it on,
 * one HTTP request to it, and raw bytes written to a socket (for requests node's client refuses to
 * send).
 */
import { expect } from "@effect/vitest"
import * as net from "node:net"
import { collectAppPids, type Daemon, httpRequest, type Reply, type RequestOptions, type Target } from "./daemon"
import { randomPortBase } from "../support/ports"

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, host: "127.0.0.1" }, () => server.close(() => resolve(true)))
  })

const usedPorts = new Set<number>()

/**
 * A port for a listener: free now, outside the ephemeral range (so no outgoing connection takes
 * it meanwhile), and never handed out twice in one test file.
 */
export const freeListenerPort = async (): Promise<number> => {
  for (;;) {
    const port = randomPortBase()
    if (!usedPorts.has(port) && (await portIsFree(port))) {
      usedPorts.add(port)
      return port
    }
  }
}

/**
 * One HTTP request to the TCP listener on localhost, with the Host header `localhost:<port>`
 * unless `headers` gives one. Bodies as `Daemon.request` takes them: an object is sent as JSON, a
 * string or Buffer as is.
 */
export const tcp = (
  port: number,
  method: string,
  urlPath: string,
  headers: Record<string, string | Array<string>> = {},
  body?: unknown,
  options: RequestOptions = {}
): Promise<Reply> =>
  httpRequest(
    { host: "localhost", port },
    method,
    urlPath,
    body,
    { host: `localhost:${port}`, ...headers },
    { timeoutMs: 15_000, ...options }
  )

/** Opens the daemon's TCP listener on localhost with `settings` (port, api_key, …) through its socket. */
export const openWeb = async (daemon: Daemon, settings: Record<string, unknown>): Promise<Reply> => {
  const reply = await daemon.request("PUT", "/daemon/web", { host: "localhost", ...settings })
  expect(reply.status, reply.raw).toBe(200)
  return reply
}

/** `raw` without the interim answers (`100 Continue` and the like) before the final one. */
export const withoutInterim = (raw: string): string => {
  let rest = raw
  for (;;) {
    const end = rest.indexOf("\r\n\r\n")
    if (end === -1 || !/^HTTP\/1\.[01] 1\d\d /.test(rest)) return rest
    rest = rest.slice(end + 4)
  }
}

/** Whether `raw` (latin1, so one character per byte) holds a whole final answer. */
const isComplete = (text: string): boolean => {
  const raw = withoutInterim(text)
  const end = raw.indexOf("\r\n\r\n")
  if (end === -1) return false
  const head = raw.slice(0, end).toLowerCase()
  const length = /\r\ncontent-length: *(\d+)/.exec(head)
  if (length !== null) return raw.length - (end + 4) >= Number(length[1])
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return raw.endsWith("\r\n0\r\n\r\n")
  return false
}

/**
 * Writes `text` to a fresh connection as is; gives back the status of the first final answer (null
 * when none came before the server closed or `waitMs` passed) and everything received.
 */
export const rawExchange = (
  target: Target,
  text: string | Buffer,
  waitMs = 2_000
): Promise<{ status: number | null; raw: string }> =>
  new Promise((resolve) => {
    const socket = "socketPath" in target ? net.connect(target.socketPath) : net.connect(target.port, target.host)
    let raw = ""
    let settled = false
    const done = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(withoutInterim(raw))
      resolve({ status: match === null ? null : Number(match[1]), raw })
    }
    const timer = setTimeout(done, waitMs)
    socket.on("data", (chunk: Buffer) => {
      raw += chunk.toString("latin1")
      if (isComplete(raw)) done()
    })
    socket.on("error", () => undefined)
    socket.on("close", done)
    socket.write(typeof text === "string" ? Buffer.from(text, "latin1") : text)
  })

/**
 * Requests to `daemon`'s listener on `port`, each with `headers` (an API key, say) under its own;
 * the app pids in the answers are recorded for the daemon's cleanup, as its own requests are.
 */
export const tcpClient =
  (daemon: Daemon, port: number, headers: Record<string, string> = {}) =>
  async (
    method: string,
    urlPath: string,
    body?: unknown,
    more: Record<string, string> = {},
    options: RequestOptions = {}
  ): Promise<Reply> => {
    const reply = await tcp(port, method, urlPath, { ...headers, ...more }, body, options)
    if (typeof reply.body === "object") collectAppPids(reply.body, daemon.appPids)
    return reply
  }
