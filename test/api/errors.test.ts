/**
 * Error answers of the daemon's API (docs/api.md): the simple shape for unknown routes and wrong
 * methods, BAD_REQUEST for bodies and values it cannot take (400, 413, 415) — and no 500, stack
 * trace or dead daemon for several hundred malformed requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import { type Daemon, idleApp, isAlive, startDaemon } from "./daemon"
import { makeAttempts, problemWith, rawRequests, STACK_TRACE } from "./malformed"
import { badRequest, ROUTES_WITH_AN_ID, simpleError, structured } from "./shapes"
import { rawExchange } from "./tcp"

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
      ["GET", "/ws/extra"]
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
      ["POST", "/api/openapi.json", "GET"],
      ["POST", "/ws", "GET"]
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
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
      undefined
    ]) {
      const reply = await daemon.request(
        "POST",
        "/api/processes",
        json,
        type === undefined ? {} : { "content-type": type }
      )
      expect(reply.status, String(type)).toBe(415)
      expect(reply.body, String(type)).toEqual(badRequest("content-type"))
    }
    // A charset parameter is still JSON (the missing script makes it 422, not 415).
    const charset = await daemon.request("POST", "/api/processes", '{"name": "charset"}', {
      "content-type": "application/json; charset=utf-8"
    })
    expect(charset.status).toBe(422)
    expect((await daemon.request("GET", "/api/processes?name=not-json")).body).toEqual([])
  })

  it("answers 413 BAD_REQUEST for a body over 1 MiB, with or without a content-length", async () => {
    const big = JSON.stringify({ name: "big", script: process.execPath, args: ["x".repeat(MiB)] })
    const declared = await daemon.request("POST", "/api/processes", big, { "content-type": "application/json" })
    expect(declared.status).toBe(413)
    expect(declared.body).toEqual(badRequest("body"))
    const chunked = await daemon.request("POST", "/api/processes", big, {
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    })
    expect(chunked.status).toBe(413)
    expect(chunked.body).toEqual(badRequest("body"))
    const restart = await daemon.request(
      "POST",
      "/api/processes/keep/restart",
      JSON.stringify({ port: "1".repeat(MiB + 1) }),
      { "content-type": "application/json" }
    )
    expect(restart.status).toBe(413)
    expect((await daemon.request("GET", "/api/processes?name=big")).body).toEqual([])
    // Just under the limit is read (and refused for what it says, not for its size).
    const under = await daemon.request(
      "POST",
      "/api/processes",
      JSON.stringify({ name: "under", args: ["x".repeat(MiB - 100)] }),
      { "content-type": "application/json" }
    )
    expect(under.status).toBe(422)
  })

  it("answers 413 to a client that writes its whole oversized body before reading (no broken pipe)", async () => {
    // 4 MiB declared, written in 64 KiB pieces, each once the one before is handed to the socket:
    // were the 413 sent before the body was read, the connection would close while the client
    // still writes, and it would get EPIPE or a reset instead of the answer.
    const piece = Buffer.alloc(64 * 1024, "x")
    const pieces = 64
    const req = http.request({
      socketPath: daemon.socket,
      method: "POST",
      path: "/api/processes",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(piece.length * pieces) }
    })
    const reply = new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      req.on("response", (res) => {
        let text = ""
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
        res.on("error", reject)
      })
    })
    // How the sending ended, awaited apart: an answer that came while the body was cut off is not enough.
    const sent = new Promise<Error | "sent">((settle) => {
      req.on("error", settle)
      req.on("close", () => settle(req.writableFinished ? "sent" : new Error("the body was cut off")))
    })
    let written = 0
    const writeNext = (): void => {
      if (written === pieces) {
        req.end()
        return
      }
      written++
      req.write(piece, (error) => {
        if (!error) setImmediate(writeNext)
      })
    }
    writeNext()
    expect(await sent).toBe("sent")
    const answer = await reply
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual(badRequest("body"))
    // The daemon still answers, and the app it had is still there.
    const listed = await daemon.request("GET", "/api/processes/keep")
    expect(listed.status).toBe(200)
    expect(listed.body.pid).toBe(keep.pid)
  })

  it("reads a chunked body under the limit once, and uses it", async () => {
    const reply = await daemon.request("POST", "/api/processes", '{"name": "chunky"}', {
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    })
    expect(reply.status).toBe(422)
    expect(reply.body).toMatchObject(structured("INVALID_CONFIG", { field: "apps[0].script" }))
    const malformed = await daemon.request("POST", "/api/processes", "{chunky", {
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual(badRequest("body"))
    const text = await daemon.request("POST", "/api/processes", "{}", {
      "content-type": "text/plain",
      "transfer-encoding": "chunked"
    })
    expect(text.status).toBe(415)
  })

  it("answers 400 BAD_REQUEST for a body nested too deeply (not a stack overflow)", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n)
    for (const body of [
      `{"apps": ${deep(100_000)}}`,
      `{"name": "d", "script": "x", "env": {"A": ${deep(100_000)}}}`,
      `{"definitions": ${deep(100_000)}}`
    ]) {
      const reply = await daemon.request("POST", "/api/processes", body, { "content-type": "application/json" })
      expect(reply.status).toBe(400)
      expect(reply.body).toEqual(badRequest("body"))
    }
  })

  it("keeps an INVALID_CONFIG answer small for a body full of problems", async () => {
    const reply = await daemon.request("POST", "/api/processes", { apps: new Array(1000).fill(0) })
    expect(reply.status).toBe(422)
    expect(reply.body.error.code).toBe("INVALID_CONFIG")
    expect(reply.body.error.message).toContain("1000 problems")
    expect(reply.body.error.details.problems).toHaveLength(100)
    expect(reply.raw.length).toBeLessThan(64 * 1024)
    // More apps than one request may define is one problem, found before each app is checked.
    const many = await daemon.request("POST", "/api/processes", { apps: new Array(200_000).fill(0) })
    expect(many.status).toBe(422)
    expect(many.body.error.message).toBe("apps: defines 200000 apps, more than 1024 (the most one file may define)")
    expect(many.body.error.details.problems).toHaveLength(1)
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
            const reply = await daemon.request(attempt.method, attempt.path, attempt.body, attempt.headers, {
              timeoutMs: 15_000
            })
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
            const problem = problemWith(attempt, reply)
            if (problem !== undefined) problems.push(problem)
          } catch (error) {
            // A connection the server cut while the body was still being sent is not a 500;
            // anything else (no answer at all, a request the test could not even send) is.
            if (!/ECONNRESET|EPIPE|socket hang up/.test(String(error)))
              problems.push(`${attempt.method} ${attempt.path.slice(0, 120)}: ${String(error)}`)
            else cut++
          }
        })
      )
    }
    for (const text of rawRequests("x")) {
      const { status, raw } = await rawExchange({ socketPath: daemon.socket }, text)
      if (status !== null && status >= 500) problems.push(`raw ${JSON.stringify(text.slice(0, 60))}: ${status}`)
      if (STACK_TRACE.test(raw)) problems.push(`raw ${JSON.stringify(text.slice(0, 60))}: stack trace`)
    }
    expect(problems).toEqual([])
    expect(cut, "requests whose connection was cut").toBeLessThan(attempts.length / 10)
    // Something of everything was exercised.
    for (const status of [200, 400, 404, 405, 413, 415])
      expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0)

    const root = await daemon.request("GET", "/")
    expect(root.status).toBe(200)
    const rows = await daemon.request("GET", "/api/processes")
    expect(rows.body).toEqual([expect.objectContaining({ id: keep.id, name: "keep", status: "online", pid: keep.pid })])
    expect(isAlive(keep.pid)).toBe(true)
    expect(isAlive(daemon.pid)).toBe(true)
  })

  it("a chunked body far beyond the limit loses its connection, and the daemon lives on", async () => {
    const outcome = await daemon
      .request("POST", "/api/processes", Buffer.alloc(24 * MiB, 0x20), {
        "content-type": "application/json",
        "transfer-encoding": "chunked"
      })
      .then((reply) => reply.status)
      .catch(() => "cut")
    expect([413, "cut"]).toContain(outcome)
    expect((await daemon.request("GET", "/api/processes/keep")).body).toMatchObject({ status: "online", pid: keep.pid })
  })
})

describe("ids no app can have", () => {
  it("an encoded `/`, `..`, a NUL or a path answers a structured 404 on every route, an over-long id a 400, and the app runs on", async () => {
    const ids = ["a%2Fb", "%2E%2E", "..", "a%00b", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "a".repeat(100)]
    const routes = ROUTES_WITH_AN_ID
    for (const id of ids) {
      for (const [method, suffix] of routes) {
        const reply = await daemon.request(method, `/api/processes/${id}${suffix}`)
        expect(reply.status, `${method} ${id.slice(0, 40)}${suffix}`).toBe(404)
        expect(reply.body, `${method} ${id.slice(0, 40)}${suffix}`).toEqual(
          structured("PROCESS_NOT_FOUND", { process_id: decodeURIComponent(id), suggestion: expect.any(String) })
        )
      }
    }
    // Longer than any name can be (100 characters): BAD_REQUEST naming the limit, on every route.
    for (const [method, suffix] of routes) {
      const reply = await daemon.request(method, `/api/processes/${"a".repeat(10_000)}${suffix}`)
      expect(reply.status, `${method} …${suffix}`).toBe(400)
      expect(reply.body).toEqual(badRequest("id"))
      expect(reply.body.error.message).toContain("longer than 100 characters")
    }
    // An unencoded `/` is another path: the simple 404 of an unknown route.
    const slash = await daemon.request("POST", "/api/processes/a/b/restart")
    expect(slash.status).toBe(404)
    expect(slash.body).toEqual(simpleError)
    expect((await daemon.request("GET", "/api/processes/keep")).body).toMatchObject({ status: "online", pid: keep.pid })
    expect(isAlive(keep.pid)).toBe(true)
  })
})

describe("structured errors of the process routes", () => {
  it("use the structured shape for a PROCESS_NOT_FOUND on every route", async () => {
    const reply = await daemon.request("DELETE", "/api/processes/ghost")
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual(structured("PROCESS_NOT_FOUND", { process_id: "ghost", suggestion: expect.any(String) }))
  })
})
