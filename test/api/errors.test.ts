/**
 * Error answers of the daemon's API (DESIGN §7): the simple shape for unknown routes and wrong
 * methods, BAD_REQUEST for bodies and values it cannot take (400, 413, 415) — and no 500, stack
 * trace or dead daemon for several hundred malformed requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as net from "node:net"
import { type Daemon, idleApp, isAlive, type Reply, startDaemon } from "./daemon"
import { badRequest, simpleError, structured } from "./shapes"

let daemon: Daemon
let keep: { id: number; pid: number }
beforeAll(async () => {
  daemon = await startDaemon()
  const created = await daemon.request("POST", "/api/processes", idleApp("keep"))
  expect(created.status).toBe(201)
  const ready = await daemon.request("GET", "/api/processes/keep/ready?timeout=30s")
  expect(ready.status).toBe(200)
  keep = { id: ready.body[0].id, pid: ready.body[0].pid }
})
afterAll(async () => {
  await daemon?.stop()
})

const MiB = 1024 * 1024

describe("unknown routes and wrong methods: the simple shape", () => {
  it("answers 404 {success:false, error} for a path that is no route", async () => {
    for (const [method, urlPath] of [
      ["GET", "/nope"],
      ["GET", "/api"],
      ["GET", "/api/nope"],
      ["POST", "/api/processes/keep/stop/now"],
      ["GET", "/api/processes/keep/logs/extra"],
      ["GET", "/ws"]
    ] as const) {
      const reply = await daemon.request(method, urlPath)
      expect(reply.status, `${method} ${urlPath}`).toBe(404)
      expect(reply.headers["content-type"]).toMatch(/^application\/json/)
      expect(reply.body, `${method} ${urlPath}`).toEqual(simpleError)
    }
  })

  it("answers 405 {success:false, error} with an Allow header for a known path with another method", async () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["PUT", "/api/processes", "GET, POST, DELETE"],
      ["PATCH", "/api/processes/keep", "GET, DELETE"],
      ["GET", "/api/processes/x/stop", "POST"],
      ["DELETE", "/api/processes/keep/restart", "POST"],
      ["POST", "/api/processes/keep/logs", "GET"],
      ["POST", "/api/system", "GET"],
      ["DELETE", "/health", "GET"],
      ["POST", "/", "GET"],
      ["GET", "/daemon/kill", "POST"],
      ["POST", "/api/openapi.json", "GET"]
    ]
    for (const [method, urlPath, allow] of cases) {
      const reply = await daemon.request(method, urlPath)
      expect(reply.status, `${method} ${urlPath}`).toBe(405)
      expect(reply.body, `${method} ${urlPath}`).toEqual(simpleError)
      expect(reply.body.error).toContain(method)
      expect(reply.headers.allow, `${method} ${urlPath}`).toBe(allow)
    }
    // The wrong method changed nothing.
    expect((await daemon.request("GET", "/api/processes/keep")).body).toMatchObject({ status: "online", pid: keep.pid })
  })
})

describe("bodies", () => {
  it("answers 400 BAD_REQUEST for malformed JSON", async () => {
    for (const body of ["{bad", '{"name": "x",}', "[1, 2", "nul", "{'a': 1}", '{"a": 1} trailing']) {
      const reply = await daemon.request("POST", "/api/processes", body, { "content-type": "application/json" })
      expect(reply.status, body).toBe(400)
      expect(reply.body, body).toEqual(badRequest("body"))
    }
  })

  it("answers 415 BAD_REQUEST for a body that is not declared as JSON", async () => {
    const json = JSON.stringify(idleApp("not-json"))
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", undefined]) {
      const reply = await daemon.request("POST", "/api/processes", json, type === undefined ? {} : { "content-type": type })
      expect(reply.status, String(type)).toBe(415)
      expect(reply.body, String(type)).toEqual(badRequest("content-type"))
    }
    // A charset parameter is still JSON (the missing script makes it 422, not 415).
    const charset = await daemon.request("POST", "/api/processes", '{"name": "charset"}', { "content-type": "application/json; charset=utf-8" })
    expect(charset.status).toBe(422)
    expect((await daemon.request("GET", "/api/processes?name=not-json")).body).toEqual([])
  })

  it("answers 413 BAD_REQUEST for a body over 1 MiB, with or without a content-length", async () => {
    const big = JSON.stringify({ name: "big", script: process.execPath, args: ["x".repeat(MiB)] })
    const declared = await daemon.request("POST", "/api/processes", big, { "content-type": "application/json" })
    expect(declared.status).toBe(413)
    expect(declared.body).toEqual(badRequest("body"))
    const chunked = await daemon.request("POST", "/api/processes", big, { "content-type": "application/json", "transfer-encoding": "chunked" })
    expect(chunked.status).toBe(413)
    expect(chunked.body).toEqual(badRequest("body"))
    const restart = await daemon.request("POST", "/api/processes/keep/restart", JSON.stringify({ port: "1".repeat(MiB + 1) }), { "content-type": "application/json" })
    expect(restart.status).toBe(413)
    expect((await daemon.request("GET", "/api/processes?name=big")).body).toEqual([])
    // Just under the limit is read (and refused for what it says, not for its size).
    const under = await daemon.request("POST", "/api/processes", JSON.stringify({ name: "under", args: ["x".repeat(MiB - 100)] }), { "content-type": "application/json" })
    expect(under.status).toBe(422)
  })

  it("reads a chunked body under the limit once, and uses it", async () => {
    const reply = await daemon.request("POST", "/api/processes", '{"name": "chunky"}', { "content-type": "application/json", "transfer-encoding": "chunked" })
    expect(reply.status).toBe(422)
    expect(reply.body).toMatchObject(structured("INVALID_CONFIG", { field: "apps[0].script" }))
    const malformed = await daemon.request("POST", "/api/processes", "{chunky", { "content-type": "application/json", "transfer-encoding": "chunked" })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual(badRequest("body"))
    const text = await daemon.request("POST", "/api/processes", "{}", { "content-type": "text/plain", "transfer-encoding": "chunked" })
    expect(text.status).toBe(415)
  })

  it("answers 400 BAD_REQUEST for a body nested too deeply (not a stack overflow)", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
    for (const body of [`{"apps": ${deep(100_000)}}`, `{"name": "d", "script": "x", "env": {"A": ${deep(100_000)}}}`, `{"definitions": ${deep(100_000)}}`]) {
      const reply = await daemon.request("POST", "/api/processes", body, { "content-type": "application/json" })
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual(badRequest("body"))
    }
  })

  it("keeps an INVALID_CONFIG answer small for a body full of problems", async () => {
    const reply = await daemon.request("POST", "/api/processes", { apps: new Array(200_000).fill(0) })
    expect(reply.status).toBe(422)
    expect(reply.body.error.code).toBe("INVALID_CONFIG")
    expect(reply.body.error.message).toContain("200000 problems")
    expect(reply.body.error.details.problems).toHaveLength(100)
    expect(reply.raw.length).toBeLessThan(64 * 1024)
  })
})

describe("query strings and paths", () => {
  it("answers 400 BAD_REQUEST for a query parameter given twice", async () => {
    const reply = await daemon.request("GET", "/api/processes?status=online&status=stopped")
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual(badRequest("status"))
  })

  it("answers 400 BAD_REQUEST for a broken %-escape in the path", async () => {
    for (const urlPath of ["/api/processes/%", "/api/processes/%zz/logs", "/api/processes/%E0%A4%A"]) {
      const reply = await daemon.request("GET", urlPath)
      expect(reply.status, urlPath).toBe(400)
      expect(reply.body, urlPath).toEqual(badRequest("path"))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Several hundred malformed requests
// ---------------------------------------------------------------------------------------------

/** A small deterministic generator, so a failure can be replayed. */
const random = (seed: number) => {
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
const PARAMS = ["status", "name", "namespace", "lines", "stream", "instance", "grep", "level", "since", "until", "follow", "timeout", "strict", "x", "", "status[]", "__proto__", "constructor"]
const VALUES = ["", "%", "%%", "%zz", "-1", "abc", "1e400", "99999999999999999999", "(", "[", "((a+)+)", "\\", "%00", "%FF%FE", "x".repeat(4000), "online,", ",,", "ONLINE", "stoped", "1.5", "Infinity", "true", "0", "%F0%9F%94%A5", "/a/gy", "2026-99-99", "1d1h"]
const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/octet-stream", "", "application/json, text/plain", "APPLICATION/JSON"]

/** Query values that can never select real rows (no valid state name, so DELETE ?status= cannot delete). */
const safeValue = (value: string, param: string) => (param === "status" && /online|stopped|errored|starting|stopping|restarting/i.test(value) ? "nope" : value)

interface Attempt {
  readonly method: string
  readonly path: string
  readonly body?: string | Buffer
  readonly headers: Record<string, string>
}

const makeAttempts = (seed: number, count: number): Array<Attempt> => {
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
        return r.pick(["/", "//", "/api", "/api/", "/api/processes", "/api/processes/", "/api//processes", "/health", "/api/system", "/api/status", "/api/system/stats", "/api/openapi.json", "/ws", "/favicon.ico", "/.env", "/api/processes/../system"])
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
        return { body: r.pick(["null", "[]", "0", '""', "true", "{}", '{"apps": {}}', '{"apps": [null]}', '{"definitions": "x"}', '{"port": {}}', '{"__proto__": {"x": 1}}']), headers }
      case 4:
        return { body: `{"apps": ${"[".repeat(5_000 + r.int(50_000))}`, headers }
      case 5:
        return { body: Buffer.alloc(MiB + 1 + r.int(MiB), 0x61), headers }
      case 6:
        return { body: Buffer.alloc(MiB + 1 + r.int(MiB), 0x20), headers: { ...headers, "transfer-encoding": "chunked" } }
      case 7:
        return { body: Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22, 0xc3, 0x28]), headers }
      default:
        return { body: JSON.stringify({ name: `fuzz-${r.int(1000)}`, [r.junk(5)]: r.junk(10), args: [r.junk(20)] }), headers }
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

/** Requests node's client refuses to send (bad request lines and headers), written to the socket as is. */
const RAW_REQUESTS = [
  "GET /api/processes/a b HTTP/1.1\r\nHost: x\r\n\r\n",
  "GET /api/processes HTTP/9.9\r\nHost: x\r\n\r\n",
  "FOO /api/processes HTTP/1.1\r\nHost: x\r\n\r\n",
  "GET\r\n\r\n",
  "\r\n\r\n",
  "GET /api/processes HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
  "POST /api/processes HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
  "POST /api/processes HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
  "POST /api/processes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
  "POST /api/processes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
  `GET /api/processes HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
  "GET /api/processes HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
  "GET /api/processes\u0000 HTTP/1.1\r\nHost: x\r\n\r\n",
  "GET http://other.example/api/processes HTTP/1.1\r\nHost: x\r\n\r\n",
  "GET * HTTP/1.1\r\nHost: x\r\n\r\n",
  "GET /api/processes/%ZZ HTTP/1.0\r\n\r\n",
  "POST /api/processes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}",
  "GET /health?strict=true HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGARBAGE AFTER",
  "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
  "GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n"
]

/** Writes `text` to the socket; gives back the status of the first answer, or null when none came. */
const rawExchange = (socketPath: string, text: string): Promise<{ status: number | null; raw: string }> =>
  new Promise((resolve) => {
    const socket = net.connect(socketPath)
    let raw = ""
    const done = () => {
      socket.destroy()
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw)
      resolve({ status: match === null ? null : Number(match[1]), raw })
    }
    const timer = setTimeout(done, 2_000)
    socket.on("data", (chunk: Buffer) => {
      raw += chunk.toString("latin1")
    })
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(timer)
      done()
    })
    socket.write(text, "latin1")
  })

const STACK_TRACE = /\bat .+\.(c?js|ts):\d+|RangeError|TypeError|SyntaxError: Unexpected/

/** What is wrong with one answer, if anything. */
const problemWith = (attempt: Attempt, reply: Reply): string | undefined => {
  const what = `${attempt.method} ${attempt.path.slice(0, 120)}`
  if (reply.status >= 500) return `${what}: ${reply.status} ${reply.raw.slice(0, 300)}`
  if (STACK_TRACE.test(reply.raw)) return `${what}: stack trace in ${reply.raw.slice(0, 300)}`
  if (reply.status >= 400 && attempt.method !== "HEAD") {
    const body = reply.body
    const simple = typeof body === "object" && body !== null && body.success === false && typeof body.error === "string" && Object.keys(body).length === 2
    const structuredShape =
      typeof body === "object" &&
      body !== null &&
      body.success === false &&
      typeof body.error?.code === "string" &&
      typeof body.error?.message === "string" &&
      typeof body.error?.details === "object"
    if (!simple && !structuredShape) return `${what}: ${reply.status} with an unexpected body ${reply.raw.slice(0, 300)}`
  }
  return undefined
}

describe("several hundred malformed requests", () => {
  it("answer no 500 and no stack trace, in one of the error shapes, and the daemon and its app live on", async () => {
    const attempts = makeAttempts(20261121, 420)
    const problems: Array<string> = []
    const statuses = new Map<number, number>()
    let cut = 0
    for (let i = 0; i < attempts.length; i += 8) {
      await Promise.all(
        attempts.slice(i, i + 8).map(async (attempt) => {
          try {
            const reply = await daemon.request(attempt.method, attempt.path, attempt.body, attempt.headers, { timeoutMs: 15_000 })
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
            const problem = problemWith(attempt, reply)
            if (problem !== undefined) problems.push(problem)
          } catch (error) {
            // A connection the server cut while the body was still being sent is not a 500;
            // anything else (no answer at all, a request the test could not even send) is.
            if (!/ECONNRESET|EPIPE|socket hang up/.test(String(error))) problems.push(`${attempt.method} ${attempt.path.slice(0, 120)}: ${String(error)}`)
            else cut++
          }
        })
      )
    }
    for (const text of RAW_REQUESTS) {
      const { status, raw } = await rawExchange(daemon.socket, text)
      if (status !== null && status >= 500) problems.push(`raw ${JSON.stringify(text.slice(0, 60))}: ${status}`)
      if (STACK_TRACE.test(raw)) problems.push(`raw ${JSON.stringify(text.slice(0, 60))}: stack trace`)
    }
    expect(problems).toEqual([])
    expect(cut, "requests whose connection was cut").toBeLessThan(attempts.length / 10)
    // Something of everything was exercised.
    for (const status of [200, 400, 404, 405, 413, 415]) expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0)

    const root = await daemon.request("GET", "/")
    expect(root.status).toBe(200)
    const rows = await daemon.request("GET", "/api/processes")
    expect(rows.body).toEqual([expect.objectContaining({ id: keep.id, name: "keep", status: "online", pid: keep.pid })])
    expect(isAlive(keep.pid)).toBe(true)
    expect(isAlive(daemon.pid)).toBe(true)
  })

  it("a chunked body far beyond the limit loses its connection, and the daemon lives on", async () => {
    const outcome = await daemon
      .request("POST", "/api/processes", Buffer.alloc(24 * MiB, 0x20), { "content-type": "application/json", "transfer-encoding": "chunked" })
      .then((reply) => reply.status)
      .catch(() => "cut")
    expect([413, "cut"]).toContain(outcome)
    expect((await daemon.request("GET", "/api/processes/keep")).body).toMatchObject({ status: "online", pid: keep.pid })
  })
})

describe("structured errors of the process routes", () => {
  it("use the structured shape for a PROCESS_NOT_FOUND on every route", async () => {
    const reply = await daemon.request("DELETE", "/api/processes/ghost")
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual(structured("PROCESS_NOT_FOUND", { process_id: "ghost", suggestion: expect.any(String) }))
  })
})
