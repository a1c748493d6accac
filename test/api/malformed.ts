/**
 * Malformed requests for the daemon's API, the same over its unix socket and its TCP listener
 * (docs/api.md): a seeded generator of several hundred odd method/path/query/body combinations, raw
 * request texts node's client refuses to send, and the checks every answer must pass.
 */
import type { Reply } from "./daemon"
import { idleApp } from "./daemon"
import { withoutInterim } from "./tcp"

export const MiB = 1024 * 1024

/** A small deterministic generator, so a failure can be replayed. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  const int = (max: number) => Math.floor(next() * max)
  const junk = (length: number) => Array.from({ length }, () => String.fromCharCode(32 + int(95))).join("")
  return { next, pick, int, junk }
}

/**
 * Ids that name nothing in the daemon: never `keep`, `all`, `default` (a namespace) or a small
 * number, so no generated request can act on the app this test keeps running.
 */
const ODD_IDS = [
  "..%2f..%2fetc",
  "..",
  ".",
  "%2e%2e",
  "%00",
  "a%00b",
  "%20",
  "%25",
  "%2F",
  "x".repeat(5000),
  "%F0%9F%92%A5",
  "%C0%AF",
  "%E0%A4%A",
  "%",
  "%%",
  "%zz",
  "-1",
  "1e9",
  "0x1f",
  "999999999999999999999",
  "NaN",
  "null",
  "undefined",
  "%3Cscript%3E",
  "kee*",
  "*",
  "%2A",
  "'%20OR%201=1",
  "$(id)",
  "%0d%0aX-Injected:%201",
  "ns:x",
  "@",
  "~",
  "a;b",
  "a,b"
]
const ACTIONS = ["start", "stop", "restart", "reload", "logs", "metrics", "ready", "", "delete", "x", "stop/", "logs/"]
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]
const PARAMS = [
  "status",
  "name",
  "namespace",
  "lines",
  "stream",
  "instance",
  "grep",
  "level",
  "since",
  "until",
  "follow",
  "timeout",
  "strict",
  "x",
  "",
  "status[]",
  "__proto__",
  "constructor"
]
const VALUES = [
  "",
  "%",
  "%%",
  "%zz",
  "-1",
  "abc",
  "1e400",
  "99999999999999999999",
  "(",
  "[",
  "((a+)+)",
  "\\",
  "%00",
  "%FF%FE",
  "x".repeat(4000),
  "online,",
  ",,",
  "ONLINE",
  "stoped",
  "1.5",
  "Infinity",
  "true",
  "0",
  "%F0%9F%94%A5",
  "/a/gy",
  "2026-99-99",
  "1d1h"
]
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/octet-stream",
  "",
  "application/json, text/plain",
  "APPLICATION/JSON"
]

/** Query values that can never select real rows (no valid state name, so DELETE ?status= cannot delete). */
const safeValue = (value: string, param: string) =>
  param === "status" && /online|stopped|errored|starting|stopping|restarting/i.test(value) ? "nope" : value

export interface Attempt {
  readonly method: string
  readonly path: string
  readonly body?: string | Buffer
  readonly headers: Record<string, string>
}

export const makeAttempts = (seed: number, count: number): Array<Attempt> => {
  const r = random(seed)
  const attempts: Array<Attempt> = []
  const query = () => {
    if (r.next() < 0.3) return ""
    const parts = Array.from({ length: 1 + r.int(4) }, () => {
      const param = r.pick(PARAMS)
      const value = r.next() < 0.2 ? encodeURIComponent(r.junk(1 + r.int(30))) : r.pick(VALUES)
      return r.next() < 0.1 ? param : `${param}=${safeValue(value, param)}`
    })
    return `?${parts.join(r.pick(["&", "&&", ";", "&="]))}`
  }
  const pathOf = () => {
    switch (r.int(6)) {
      case 0:
        return r.pick([
          "/",
          "//",
          "/api",
          "/api/",
          "/api/processes",
          "/api/processes/",
          "/api//processes",
          "/health",
          "/api/system",
          "/api/status",
          "/api/system/stats",
          "/api/openapi.json",
          "/ws",
          "/favicon.ico",
          "/.env",
          "/api/processes/../system"
        ])
      case 1:
        return `/api/processes/${r.pick(ODD_IDS)}`
      case 2:
        return `/api/processes/${r.pick(ODD_IDS)}/${r.pick(ACTIONS)}`
      case 3:
        return `/${encodeURIComponent(r.junk(1 + r.int(20)))}`
      case 4:
        return `/api/processes/${String(100_000 + r.int(1_000_000))}/${r.pick(ACTIONS)}`
      default:
        return `/api/${r.pick(["processes", "system", "status", "x"])}/${encodeURIComponent(r.junk(1 + r.int(10)))}/${r.pick(ACTIONS)}`
    }
  }
  const bodyOf = (): { body?: string | Buffer; headers: Record<string, string> } => {
    const type = r.pick(CONTENT_TYPES)
    const headers: Record<string, string> = type === "" ? {} : { "content-type": type }
    switch (r.int(9)) {
      case 0:
        return { headers }
      case 1:
        return { body: r.junk(1 + r.int(200)), headers }
      case 2:
        return { body: JSON.stringify(idleApp("fuzz")).slice(0, 1 + r.int(60)), headers }
      case 3:
        return {
          body: r.pick([
            "null",
            "[]",
            "0",
            '""',
            "true",
            "{}",
            '{"apps": {}}',
            '{"apps": [null]}',
            '{"definitions": "x"}',
            '{"port": {}}',
            '{"__proto__": {"x": 1}}'
          ]),
          headers
        }
      case 4:
        return { body: `{"apps": ${"[".repeat(5_000 + r.int(50_000))}`, headers }
      case 5:
        return { body: Buffer.alloc(MiB + 1 + r.int(MiB), 0x61), headers }
      case 6:
        return {
          body: Buffer.alloc(MiB + 1 + r.int(MiB), 0x20),
          headers: { ...headers, "transfer-encoding": "chunked" }
        }
      case 7:
        return { body: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0xc3, 0x28]), headers }
      default:
        return {
          body: JSON.stringify({ name: `fuzz-${r.int(1000)}`, [r.junk(5)]: r.junk(10), args: [r.junk(20)] }),
          headers
        }
    }
  }
  while (attempts.length < count) {
    const method = r.pick(METHODS)
    const urlPath = `${pathOf()}${query()}`
    const { body, headers } = method === "GET" || method === "HEAD" || r.next() < 0.15 ? { headers: {} } : bodyOf()
    attempts.push(body === undefined ? { method, path: urlPath, headers } : { method, path: urlPath, body, headers })
  }
  return attempts
}

/**
 * Requests node's client refuses to send (bad request lines and headers), to write to a socket as
 * is; `host` is what their Host headers name, and `extra` (whole header lines, each ending in CRLF)
 * follows it — an API key, say.
 */
export const rawRequests = (host: string, extra = ""): ReadonlyArray<string> => [
  `GET /api/processes/a b HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`,
  `GET /api/processes HTTP/9.9\r\nHost: ${host}\r\n${extra}\r\n`,
  `FOO /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`,
  `GET\r\n\r\n`,
  `\r\n\r\n`,
  `GET /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Length: abc\r\n\r\n`,
  `POST /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Length: -5\r\n\r\n`,
  `POST /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`,
  `POST /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
  `POST /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
  `GET /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}X-Big: ${"a".repeat(20_000)}\r\n\r\n`,
  `GET /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Bad Header\r\n\r\n`,
  `GET /api/processes\u0000 HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`,
  `GET http://other.example/api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`,
  `GET * HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`,
  `GET /api/processes/%ZZ HTTP/1.0\r\n\r\n`,
  `POST /api/processes HTTP/1.1\r\nHost: ${host}\r\n${extra}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{}`,
  `GET /health?strict=true HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\nGARBAGE AFTER`,
  `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
  `GET /\u00e9 HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`
]

/** Signs of a stack trace or a raw exception in an answer. */
export const STACK_TRACE =
  /\bat .+\.(c?js|ts):\d+|\bat (\S+ \()?(node:|file:\/\/)|\b(Range|Type|Reference|Syntax|URI|Eval)Error\b|node_modules\//

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** docs/api.md §6's three error shapes: authentication (401, 403), simple, structured. */
export const errorShapeOf = (status: number, body: unknown): "auth" | "simple" | "structured" | undefined => {
  if (!isObject(body)) return undefined
  const keys = Object.keys(body).sort().join(",")
  if (
    (status === 401 || status === 403) &&
    keys === "error,message" &&
    typeof body.error === "string" &&
    typeof body.message === "string"
  )
    return "auth"
  if (keys !== "error,success" || body.success !== false) return undefined
  if (typeof body.error === "string") return "simple"
  const error = body.error
  if (isObject(error) && typeof error.code === "string" && typeof error.message === "string" && isObject(error.details))
    return "structured"
  return undefined
}

/**
 * Whether node's HTTP server wrote the answer itself, refusing a request the daemon never saw:
 * its parser's `400`, `408`, `413` or `431` (an unknown method, a request line or headers over
 * 16 KiB, a broken header), written without a `Date` header; or its `400` for an HTTP/1.1 request
 * without a Host header. Both have no body and close the connection.
 */
export const isNodeAnswer = (status: number, headers: Readonly<Record<string, unknown>>, body: string): boolean =>
  body === "" &&
  String(headers["connection"] ?? "").toLowerCase() === "close" &&
  (headers["date"] === undefined ? [400, 408, 413, 431].includes(status) : status === 400)

/**
 * What is wrong with one answer, if anything: a 5xx, a stack trace, an error without one of the
 * three shapes, or a success under /api/ whose body is not JSON.
 */
export const problemWith = (attempt: Attempt, reply: Reply): string | undefined => {
  const what = `${attempt.method} ${attempt.path.slice(0, 120)}`
  if (reply.status >= 500) return `${what}: ${reply.status} ${reply.raw.slice(0, 300)}`
  if (STACK_TRACE.test(reply.raw)) return `${what}: stack trace in ${reply.raw.slice(0, 300)}`
  if (attempt.method === "HEAD") return reply.raw === "" ? undefined : `${what}: HEAD answered with a body`
  if (isNodeAnswer(reply.status, reply.headers, reply.raw)) return undefined
  if (reply.status >= 400) {
    if (errorShapeOf(reply.status, reply.body) === undefined)
      return `${what}: ${reply.status} with an unexpected body ${reply.raw.slice(0, 300)}`
  } else if (/^\/+api\//.test(attempt.path) && reply.raw !== "" && typeof reply.body !== "object") {
    return `${what}: ${reply.status} with a body that is not JSON: ${reply.raw.slice(0, 300)}`
  }
  return undefined
}

/** One answer read off a raw socket (latin1 text, as `rawExchange` gives it). */
export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The body, decoded as UTF-8 (de-chunked when chunked). */
  readonly body: string
}

/** The first final answer in `received` (after any `100 Continue`), or undefined when no whole status line and headers came. */
export const parseRawAnswer = (received: string): RawAnswer | undefined => {
  const raw = withoutInterim(received)
  const end = raw.indexOf("\r\n\r\n")
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(raw)
  if (end === -1 || status === null) return undefined
  const headers: Record<string, string> = {}
  for (const line of raw.slice(0, end).split("\r\n").slice(1)) {
    const colon = line.indexOf(":")
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = raw.slice(end + 4)
  if (headers["content-length"] !== undefined) {
    body = body.slice(0, Number(headers["content-length"]))
  } else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    let rest = body
    body = ""
    for (;;) {
      const lineEnd = rest.indexOf("\r\n")
      const size = lineEnd === -1 ? 0 : parseInt(rest.slice(0, lineEnd), 16)
      if (!(size > 0)) break
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size)
      rest = rest.slice(lineEnd + 2 + size + 2)
    }
  }
  return { status: Number(status[1]), headers, body: Buffer.from(body, "latin1").toString("utf8") }
}

/**
 * What is wrong with the answer to a raw request, if anything: a 5xx, a stack trace, or an error
 * that is neither node's own parser answer nor JSON in one of the three shapes. No answer at all
 * (the server closed, or is still waiting for the rest of a request) is fine.
 */
export const problemWithRaw = (label: string, raw: string): string | undefined => {
  if (STACK_TRACE.test(raw)) return `${label}: stack trace in ${raw.slice(0, 300)}`
  const answer = parseRawAnswer(raw)
  if (answer === undefined)
    return /^HTTP\//.test(raw) ? `${label}: a broken answer ${JSON.stringify(raw.slice(0, 300))}` : undefined
  if (answer.status >= 500) return `${label}: ${answer.status} ${raw.slice(0, 300)}`
  if (answer.status < 400 || isNodeAnswer(answer.status, answer.headers, answer.body)) return undefined
  let body: unknown
  try {
    body = /json/.test(answer.headers["content-type"] ?? "") ? JSON.parse(answer.body) : undefined
  } catch {
    body = undefined
  }
  return errorShapeOf(answer.status, body) === undefined
    ? `${label}: ${answer.status} with an unexpected body ${JSON.stringify(raw.slice(0, 300))}`
    : undefined
}
