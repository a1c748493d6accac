/**
 * Several hundred malformed requests to the daemon's TCP listener (docs/api.md, docs/api.md §6), through
 * node's client and as raw bytes: bad JSON (truncated, binary, nested 100k deep, huge numbers),
 * bodies over 1 MiB with and without a content-length, odd paths, methods and headers, and HTTP
 * garbage. No answer is a 500 or carries a stack trace, every error is in one of the three shapes,
 * and the daemon and its app live on. Without the key none of them gets anything but a refusal —
 * no process data.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { type Daemon, idleApp, isAlive, type Reply, startDaemon } from "./daemon"
import {
  type Attempt,
  errorShapeOf,
  isNodeAnswer,
  makeAttempts,
  MiB,
  problemWith,
  problemWithRaw,
  random,
  rawRequests
} from "./malformed"
import { freeListenerPort, openWeb, rawExchange, tcp } from "./tcp"

const KEY = "k-tcp-malformed-0123456789"
const SECRET = "hunter2-tcp-malformed"
const UNAUTHORIZED = { error: "unauthorized", message: "Invalid or missing API key" }

let daemon: Daemon
let port: number
let keep: { id: number; pid: number }

beforeAll(async () => {
  daemon = await startDaemon()
  const created = await daemon.request("POST", "/api/processes", idleApp("keep", { env: { SECRET } }))
  expect(created.status, created.raw).toBe(201)
  const ready = await daemon.request("GET", "/api/processes/keep/ready?timeout=30s")
  expect(ready.status, ready.raw).toBe(200)
  keep = { id: ready.body[0].id, pid: ready.body[0].pid }
  port = await freeListenerPort()
  await openWeb(daemon, { port, api_key: KEY })
})
afterAll(async () => {
  await daemon?.stop()
})

/** A resolved definition, as the CLI sends it in `{definitions}`. */
const resolvedDefinition = async (name: string) => {
  const loaded = await Effect.runPromise(
    Effect.flatMap(ConfigLoader, (loader) =>
      loader.fromDocument(idleApp(name), process.cwd(), { environment: {} })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )
  return loaded.apps[0]!
}

/**
 * Requests aimed at what a TCP listener adds or what the generator leaves out: the paths, methods,
 * Host headers and bodies of the brief, huge numbers in app settings, and deep nesting. Apps they
 * might create are all named `huge-…`, so the test can tell that none was.
 */
const tcpAttempts = async (seed: number): Promise<Array<Attempt>> => {
  const r = random(seed)
  const json = { "content-type": "application/json" }
  const attempts: Array<Attempt> = []
  const get = (urlPath: string, headers: Record<string, string> = {}) =>
    attempts.push({ method: "GET", path: urlPath, headers })
  const post = (urlPath: string, body: string | Buffer, headers: Record<string, string> = json) =>
    attempts.push({ method: "POST", path: urlPath, body, headers })

  for (const urlPath of [
    "/api/processes/..%2f..%2fetc",
    "/api/processes/..%2F..%2Fetc%2Fpasswd/logs",
    "/api/processes/%2e%2e/%2e%2e/metrics",
    "/api/processes/%00",
    "/api/processes/%00/logs",
    "//api//processes",
    "///api///processes///",
    "/api//processes//keep",
    "/api/processes/%C3%BC%C3%B1%C3%AF%C3%A7%C3%B6d%C3%A9",
    "/api/processes/%F0%9F%92%A5/logs",
    "/api/processes/%ED%A0%80",
    "/api/processes/1/logs?lines=-1&since=garbage&grep=(",
    "/api/processes/1/logs?grep=((a%2B)%2B)%24&lines=10000",
    "/api/processes/1/logs?since=99999999999999999999&until=-1",
    "/api/processes?name=%00",
    "/api/processes?status=online%00",
    `/api/processes?name=${"b".repeat(10_000)}`,
    `/api/processes/${"a".repeat(64 * 1024)}`,
    `/api/processes?grep=${"(".repeat(20_000)}`
  ]) {
    get(urlPath)
  }
  for (const method of [
    "PATCH",
    "TRACE",
    "FOO",
    "PROPFIND",
    "PURGE",
    "M-SEARCH",
    "LINK",
    "UNLINK",
    "SEARCH",
    "CHECKOUT"
  ]) {
    for (const urlPath of ["/api/processes", "/api/processes/99999", "/", "/health"])
      attempts.push({ method, path: urlPath, headers: {} })
  }
  for (const host of [
    "evil.example.com",
    `evil.example.com:${port}`,
    "localhost:1",
    "localhost",
    "127.0.0.1",
    `[::1]:${port + 1}`,
    `localhost.:${port}`,
    `localhost:${port}@evil.example.com`,
    " "
  ]) {
    get("/api/processes", { host })
    attempts.push({ method: "POST", path: "/api/processes/99999/stop", headers: { host } })
  }
  for (const origin of ["https://evil.example.com", "null", `http://localhost:${port}.evil.example.com`]) {
    attempts.push({ method: "POST", path: "/api/processes/99999/restart", headers: { origin } })
    attempts.push({ method: "DELETE", path: "/api/processes/99999", headers: { origin } })
  }

  // Bad JSON: truncated, binary garbage, a byte-order mark, UTF-16, nesting far too deep.
  const app = JSON.stringify(idleApp("huge-truncated"))
  for (let cut = 1; cut < app.length; cut += 7) post("/api/processes", app.slice(0, cut))
  for (let i = 0; i < 12; i++)
    post("/api/processes", Buffer.from(Array.from({ length: 1 + r.int(300) }, () => r.int(256))))
  post("/api/processes", `\uFEFF${app}`)
  post("/api/processes", Buffer.from(app, "utf16le"), { "content-type": "application/json; charset=utf-16" })
  post("/api/processes", "[".repeat(100_000))
  post("/api/processes", `{"apps": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`)
  post("/api/processes", `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`)
  post("/api/processes/99999/restart", `{"port": ${"[".repeat(100_000)}`)
  post("/api/processes", JSON.stringify("x".repeat(MiB - 100)))

  // Huge numbers where settings take numbers: each must be refused, never taken.
  const hugeNumbers: ReadonlyArray<readonly [string, string]> = [
    ["instances", "1e12"],
    ["instances", "99999999999999999999"],
    ["instances", "1e400"],
    ["instances", "-1e400"],
    ["instances", "2000"],
    ["port", "1e400"],
    ["port", "99999999999999999999"],
    ["min_uptime", "1e400"],
    ["kill_timeout", "-1e400"],
    ["max_memory_restart", "1e400"],
    ["max_restarts", "1e400"],
    ["max_log_files", "-0"]
  ]
  for (const [i, [key, number]] of hugeNumbers.entries()) {
    const text = JSON.stringify(idleApp(`huge-${i}`)).replace(/}$/, `, "${key}": ${number}}`)
    post("/api/processes", text)
    post("/api/processes", `{"apps": [${text}]}`)
  }
  post(
    "/api/processes",
    JSON.stringify({ apps: Array.from({ length: 3 }, (_, i) => idleApp(`huge-many-${i}`, { instances: 400 })) })
  )
  const definition = await resolvedDefinition("huge-resolved")
  post("/api/processes", JSON.stringify({ definitions: [definition] }).replace('"instances":1', '"instances":1e12'))
  post("/api/processes", JSON.stringify({ definitions: [definition] }).replace('"instances":1', '"instances":5000'))
  post(
    "/api/processes",
    JSON.stringify({ definitions: [definition] }).replace('"max_log_files":10', '"max_log_files":1e400')
  )
  post("/api/processes/99999/restart", '{"port": 1e400}')

  // Bodies over 1 MiB: with a content-length, chunked, and chunked far past it.
  post("/api/processes", Buffer.alloc(MiB + 1, 0x7b))
  post("/api/processes", Buffer.alloc(4 * MiB, 0x5b))
  post("/api/processes", Buffer.alloc(MiB + 1, 0x20), { ...json, "transfer-encoding": "chunked" })
  post("/api/processes/99999/reload", Buffer.alloc(3 * MiB, 0x31), { ...json, "transfer-encoding": "chunked" })
  return attempts
}

/** Raw requests for the TCP listener beyond the shared ones: headers node's client will not send, and plain garbage. */
const tcpRawRequests = (host: string, key: string, seed: number): Array<string | Buffer> => {
  const r = random(seed)
  const h = `Host: ${host}\r\n${key}`
  const requests: Array<string | Buffer> = [
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 2, 2\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: +2\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 1e3\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 0x10\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 99999999999999999999\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length:\r\n\r\n{}`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n{}\r\n0\r\n\r\n`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}`,
    `GET /api/processes HTTP/1.1\r\n${key}\r\n`,
    `GET /api/processes HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example.com\r\n${key}\r\n`,
    `GET /api/processes HTTP/1.1\r\nHost:\r\n${key}\r\n`,
    `GET /api/processes HTTP/1.1\r\nHost: evil.example.com\r\n${key}\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}X-Folded: a\r\n b\r\n\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}X-Nul: a\u0000b\r\n\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}: no-name\r\n\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}${Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${i}\r\n`).join("")}\r\n`,
    `GET\t/api/processes\tHTTP/1.1\r\n${h}\r\n`,
    `GET /api/processes HTTP/1.1\n${h.replace(/\r\n/g, "\n")}\n`,
    `GET http://${host}/api/processes HTTP/1.1\r\n${h}\r\n`,
    `OPTIONS * HTTP/1.1\r\n${h}\r\n`,
    `CONNECT localhost:22 HTTP/1.1\r\n${h}\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    `GET /api/processes HTTP/1.1\r\n${h}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`,
    `GET /\r\n\r\n`,
    `GET /api/processes HTTP/1.0\r\n${key}Connection: keep-alive\r\n\r\n`,
    `GET /api/status HTTP/1.1\r\n${h}\r\nGARBAGE / HTTP/1.1\r\n\r\n`,
    `GET /api/processes/keep HTTP/1.1\r\n${h}Content-Length: 5\r\n\r\nhello`,
    `POST /api/processes HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: 20\r\n\r\n{"name":`,
    Buffer.from(`GET /api/processes/ünïcödé/logs HTTP/1.1\r\n${h}\r\n`, "utf8"),
    Buffer.from(`GET /api/processes?name=💥 HTTP/1.1\r\n${h}\r\n`, "utf8"),
    Buffer.from("16030100a5010000a10303" + "00".repeat(32) + "000020c02bc02f", "hex"),
    Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04\x00\x00\x00\x00\x00", "latin1")
  ]
  for (let i = 0; i < 16; i++) requests.push(Buffer.from(Array.from({ length: 1 + r.int(400) }, () => r.int(256))))
  for (let i = 0; i < 8; i++)
    requests.push(
      `${r.junk(3 + r.int(6)).replace(/ /g, "_")} /${r.junk(r.int(30)).replace(/ /g, "%20")} HTTP/1.1\r\n${h}${r.junk(r.int(40))}\r\n\r\n`
    )
  return requests
}

/** Sends `attempts` eight at a time; gives back the answers (or the error of a cut connection). */
const sendAll = async (attempts: ReadonlyArray<Attempt>, headers: Record<string, string>) => {
  const outcomes: Array<{ attempt: Attempt; reply?: Reply; error?: string }> = []
  for (let i = 0; i < attempts.length; i += 8) {
    await Promise.all(
      attempts.slice(i, i + 8).map(async (attempt) => {
        try {
          const reply = await tcp(
            port,
            attempt.method,
            attempt.path,
            { ...headers, ...attempt.headers },
            attempt.body,
            { timeoutMs: 20_000 }
          )
          outcomes.push({ attempt, reply })
        } catch (error) {
          outcomes.push({ attempt, error: String(error) })
        }
      })
    )
  }
  return outcomes
}

/** Raw requests, eight at a time; gives back what came back on each. */
const exchangeAll = async (requests: ReadonlyArray<string | Buffer>) => {
  const outcomes: Array<{ text: string | Buffer; raw: string }> = []
  for (let i = 0; i < requests.length; i += 8) {
    await Promise.all(
      requests.slice(i, i + 8).map(async (text) => {
        const { raw } = await rawExchange({ host: "localhost", port }, text)
        outcomes.push({ text, raw })
      })
    )
  }
  return outcomes
}

const label = (text: string | Buffer) =>
  JSON.stringify((typeof text === "string" ? text : text.toString("latin1")).slice(0, 60))

/** A connection the server cut while the body was still being sent: not an answer, and not a 500. */
const CUT = /ECONNRESET|EPIPE|socket hang up/

/** The daemon answers, `keep` is online with its pid, and state.json still lists it. */
const expectDaemonAndAppIntact = async () => {
  const status = await tcp(port, "GET", "/api/status", { "x-api-key": KEY })
  expect(status.status, status.raw).toBe(200)
  expect(status.body).toMatchObject({ pid: daemon.pid, web: { host: "localhost", port, auth: true } })
  const rows = await tcp(port, "GET", "/api/processes", { "x-api-key": KEY })
  expect(rows.body).toEqual([
    expect.objectContaining({ id: keep.id, name: "keep", status: "online", pid: keep.pid, restarts: 0 })
  ])
  expect(isAlive(keep.pid)).toBe(true)
  expect(isAlive(daemon.pid)).toBe(true)
  // The socket answers too, and state.json (saved after every change) lists the app as running.
  expect((await daemon.request("POST", "/api/processes/99999/stop")).status).toBe(404)
  const saved = JSON.parse(fs.readFileSync(path.join(daemon.home, "state.json"), "utf8"))
  expect(saved.killed).toBe(false)
  expect(saved.engine.apps).toEqual([
    expect.objectContaining({
      definition: expect.objectContaining({ name: "keep" }),
      rows: [expect.objectContaining({ id: keep.id, pid: keep.pid, desired: "running" })]
    })
  ])
}

describe("malformed requests over TCP, with the key", () => {
  it("answer no 500 and no stack trace, every error in one of the three shapes, and the daemon and its app live on", async () => {
    const attempts = [...makeAttempts(20261122, 300), ...(await tcpAttempts(7))]
    expect(attempts.length).toBeGreaterThan(400)
    const outcomes = await sendAll(attempts, { "x-api-key": KEY })
    const problems: Array<string> = []
    const statuses = new Map<number, number>()
    let cut = 0
    for (const { attempt, reply, error } of outcomes) {
      if (reply === undefined) {
        if (CUT.test(error!)) cut++
        else problems.push(`${attempt.method} ${attempt.path.slice(0, 120)}: ${error}`)
        continue
      }
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      const problem = problemWith(attempt, reply)
      if (problem !== undefined) problems.push(problem)
      // A Host that does not name this loopback listener, or a foreign Origin on a change: 403.
      if ((attempt.headers.host !== undefined || attempt.headers.origin !== undefined) && reply.status !== 403) {
        problems.push(`${attempt.method} ${attempt.path} ${JSON.stringify(attempt.headers)}: ${reply.status}, not 403`)
      }
    }
    const raws = await exchangeAll([
      ...rawRequests(`localhost:${port}`, `X-API-Key: ${KEY}\r\n`),
      ...tcpRawRequests(`localhost:${port}`, `X-API-Key: ${KEY}\r\n`, 11)
    ])
    for (const { text, raw } of raws) {
      const problem = problemWithRaw(`raw ${label(text)}`, raw)
      if (problem !== undefined) problems.push(problem)
    }
    expect(problems).toEqual([])
    expect(cut, "requests whose connection was cut").toBeLessThan(attempts.length / 10)
    // Something of everything was exercised, the key let the requests through, and the wrong
    // Host headers were refused.
    for (const status of [200, 400, 403, 404, 405, 413, 415, 422])
      expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0)
    expect(statuses.get(401) ?? 0).toBe(0)
    expect(
      raws.filter(({ raw }) => raw.startsWith("HTTP/1.1 200")).length,
      "raw requests answered 200"
    ).toBeGreaterThan(0)

    // Not one of the huge-number or oversized bodies made an app.
    const made = await tcp(port, "GET", "/api/processes?name=huge*", { "x-api-key": KEY })
    expect(made.body).toEqual([])
    await expectDaemonAndAppIntact()
  })
})

describe("malformed requests over TCP, without the key", () => {
  it("get only refusals (401, 403, 404 on daemon routes, node's own 400/431, 4xx on the public /ws) and never process data", async () => {
    const attempts = [...makeAttempts(20261123, 300), ...(await tcpAttempts(8))]
    const wrongKeys: ReadonlyArray<Record<string, string>> = [
      {},
      { "x-api-key": "wrong" },
      { "x-api-key": KEY.toUpperCase() },
      { "x-api-key": `${KEY}x` },
      { "x-api-key": KEY.slice(0, -1) },
      { authorization: `Basic ${KEY}` },
      { authorization: `Bearer${KEY}` },
      { authorization: `Bearer ${KEY}`, "x-api-key": "" },
      { authorization: "Bearer" },
      { authorization: `Token ${KEY}` }
    ]
    const problems: Array<string> = []
    const statuses = new Map<number, number>()
    let cut = 0
    const leaks = [SECRET, `"keep"`, `"pid"`, daemon.home, `"processes":[`, `"uptime"`]
    const check = (
      what: string,
      status: number,
      headers: Readonly<Record<string, unknown>>,
      text: string,
      body: unknown,
      method: string,
      urlPath: string
    ) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      for (const leak of leaks)
        if (text.includes(leak)) problems.push(`${what}: ${status} leaks ${leak}: ${text.slice(0, 200)}`)
      const root = (method === "GET" || method === "HEAD") && /^\/(\?.*)?$/.test(urlPath)
      if (status === 200 && root) return // the public service record (GET /)
      if (isNodeAnswer(status, headers, text)) return
      // A HEAD answer has no body to check: its status must be a refusal all the same.
      const head = method === "HEAD" && text === ""
      if (status === 401) {
        if (!head && JSON.stringify(body) !== JSON.stringify(UNAUTHORIZED))
          problems.push(`${what}: 401 with ${text.slice(0, 200)}`)
      } else if (status === 403) {
        if (!head && errorShapeOf(403, body) !== "auth") problems.push(`${what}: 403 with ${text.slice(0, 200)}`)
      } else if (status === 404 && /^\/+daemon/i.test(decodeURIComponentSafe(urlPath))) {
        if (!head && errorShapeOf(404, body) !== "simple") problems.push(`${what}: 404 with ${text.slice(0, 200)}`)
      } else if (status >= 400 && status < 500 && /^\/ws(\?|$)/.test(urlPath)) {
        // The WebSocket handshake is public (docs/api.md §8): without a key the route itself answers,
        // and for anything but a proper GET upgrade that is an error without data.
        if (!head && errorShapeOf(status, body) === undefined)
          problems.push(`${what}: ${status} with ${text.slice(0, 200)}`)
      } else {
        problems.push(`${what}: ${status} ${text.slice(0, 200)}`)
      }
    }
    for (const [i, headers] of wrongKeys.entries()) {
      // Every attempt once, with one of the wrong keys in turn.
      const mine = attempts.filter((_, j) => j % wrongKeys.length === i)
      for (const { attempt, reply, error } of await sendAll(mine, headers)) {
        const what = `${attempt.method} ${attempt.path.slice(0, 100)} ${JSON.stringify(headers)}`
        if (reply === undefined) {
          if (CUT.test(error!)) cut++
          else problems.push(`${what}: ${error}`)
          continue
        }
        check(what, reply.status, reply.headers, reply.raw, reply.body, attempt.method, attempt.path)
      }
    }
    for (const [method, urlPath] of [
      ["POST", "/daemon/kill"],
      ["GET", "/daemon/kill"],
      ["POST", "/%64aemon/resurrect"],
      ["PUT", "//daemon/web"]
    ] as const) {
      const reply = await tcp(port, method, urlPath)
      check(`${method} ${urlPath}`, reply.status, reply.headers, reply.raw, reply.body, method, urlPath)
      expect(reply.status, `${method} ${urlPath}`).toBe(404)
    }
    const raws = await exchangeAll([
      ...rawRequests(`localhost:${port}`),
      ...tcpRawRequests(`localhost:${port}`, "", 12)
    ])
    for (const { text, raw } of raws) {
      const problem = problemWithRaw(`raw ${label(text)}`, raw)
      if (problem !== undefined) problems.push(problem)
      for (const leak of leaks) if (raw.includes(leak)) problems.push(`raw ${label(text)} leaks ${leak}`)
      if (/^HTTP\/1\.[01] 2/.test(raw)) problems.push(`raw ${label(text)}: ${raw.slice(0, 100)}`)
    }
    expect(problems).toEqual([])
    expect(cut, "requests whose connection was cut").toBeLessThan(attempts.length / 10)
    expect(statuses.get(401) ?? 0).toBeGreaterThan(attempts.length / 2)
    expect(statuses.get(403) ?? 0).toBeGreaterThan(0)
    await expectDaemonAndAppIntact()
  })
})

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
