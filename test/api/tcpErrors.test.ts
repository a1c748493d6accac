/**
 * Every structured error code of docs/api.md's table reached through the daemon's TCP listener (with
 * an API key configured and sent): its exact HTTP status and its exact body
 * `{success:false, error:{code, message, details}}`; the simple shape of unknown routes (404) and
 * wrong methods (405); the daemon routes that do not exist on TCP — and afterwards the daemon still
 * answers and every app is as the table left it. SERVICE_UNAVAILABLE needs a daemon that is
 * shutting down, so it has a daemon of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { type Daemon, eventually, idleApp, isAlive, type Reply, startDaemon } from "./daemon"
import { MiB } from "./malformed"
import {
  actionResult,
  badRequest,
  freePort,
  holdPort,
  ROUTES_WITH_AN_ID,
  simpleError,
  structured,
  summary
} from "./shapes"
import { freeListenerPort, openWeb, tcpClient } from "./tcp"

const KEY = "k-tcp-errors-0123456789"
const MISSING = "/nonexistent/pmfx-tcp-errors-binary"

type Send = ReturnType<typeof tcpClient>

let daemon: Daemon
let port: number
/** A request over TCP with the key. */
let send: Send

beforeAll(async () => {
  daemon = await startDaemon()
  port = await freeListenerPort()
  await openWeb(daemon, { port, api_key: KEY })
  send = tcpClient(daemon, port, { authorization: `Bearer ${KEY}` })
})
afterAll(async () => {
  await daemon?.stop()
})

interface Row {
  readonly id: number
  readonly name: string
  readonly status: string
  readonly pid: number | null
}

const rowsOf = async (name: string): Promise<Array<Row>> => {
  const reply = await send("GET", `/api/processes?name=${encodeURIComponent(name)}`)
  expect(reply.status, reply.raw).toBe(200)
  return reply.body
}

const ready = async (name: string): Promise<Array<Row>> => {
  const reply = await send("GET", `/api/processes/${name}/ready?timeout=30s`)
  expect(reply.status, reply.raw).toBe(200)
  return reply.body
}

const expectJson = (reply: Reply) => expect(reply.headers["content-type"]).toMatch(/^application\/json/)

/** What the table leaves running, to compare with at the end. */
const kept: { app?: Row; pair?: ReadonlyArray<Row> } = {}

describe("structured errors over TCP, with the key", () => {
  it("PROCESS_NOT_FOUND: 404 {process_id, suggestion} on every route that takes an id", async () => {
    const routes = [...ROUTES_WITH_AN_ID, ["GET", "/ready?timeout=1s"] as const]
    for (const [method, suffix] of routes) {
      const reply = await send(method, `/api/processes/ghost${suffix}`)
      expect(reply.status, `${method} ${suffix}`).toBe(404)
      expectJson(reply)
      expect(reply.body, `${method} ${suffix}`).toEqual(
        structured("PROCESS_NOT_FOUND", { process_id: "ghost", suggestion: expect.any(String) })
      )
    }
    // A %-encoded id is decoded before it is looked up, and named as decoded.
    const encoded = await send("GET", "/api/processes/..%2f..%2fetc")
    expect(encoded.status).toBe(404)
    expect(encoded.body).toEqual(
      structured("PROCESS_NOT_FOUND", { process_id: "../../etc", suggestion: expect.any(String) })
    )
  })

  it("PROCESS_ALREADY_EXISTS: 409 {process_id (the name), suggestion} for a name taken, and nothing changes", async () => {
    const created = await send("POST", "/api/processes", idleApp("tcp-app"))
    expect(created.status, created.raw).toBe(201)
    expect(created.body).toEqual(
      actionResult([summary({ name: "tcp-app", status: expect.stringMatching(/^(starting|online)$/) })])
    )
    const [row] = await ready("tcp-app")
    kept.app = row!

    const again = await send(
      "POST",
      "/api/processes",
      idleApp("tcp-app", { args: ["-e", "setInterval(() => {}, 500)"] })
    )
    expect(again.status).toBe(409)
    expectJson(again)
    expect(again.body).toEqual(
      structured("PROCESS_ALREADY_EXISTS", { process_id: "tcp-app", suggestion: expect.any(String) })
    )
    // The same name inside one {apps} body is refused too, and the other app is not created.
    const twice = await send("POST", "/api/processes", { apps: [idleApp("tcp-fresh"), idleApp("tcp-app")] })
    expect(twice.status).toBe(409)
    expect(twice.body).toEqual(
      structured("PROCESS_ALREADY_EXISTS", { process_id: "tcp-app", suggestion: expect.any(String) })
    )
    expect(await rowsOf("tcp-fresh")).toEqual([])
    expect(await rowsOf("tcp-app")).toEqual([expect.objectContaining({ id: row!.id, status: "online", pid: row!.pid })])
  })

  it("PROCESS_ALREADY_RUNNING: 409 {process_id, pid, suggestion} for start of an online app", async () => {
    const app = kept.app!
    for (const target of ["tcp-app", String(app.id)]) {
      const reply = await send("POST", `/api/processes/${target}/start`)
      expect(reply.status, target).toBe(409)
      expectJson(reply)
      expect(reply.body, target).toEqual(
        structured("PROCESS_ALREADY_RUNNING", { process_id: target, pid: app.pid, suggestion: expect.any(String) })
      )
    }
  })

  it("PORT_IN_USE: 409 {port, suggestion} for a fixed port the test holds, and nothing is created", async () => {
    const held = await holdPort()
    try {
      const reply = await send("POST", "/api/processes", idleApp("tcp-port-taken", { port: String(held.port) }))
      expect(reply.status, reply.raw).toBe(409)
      expectJson(reply)
      expect(reply.body).toEqual(structured("PORT_IN_USE", { port: held.port, suggestion: expect.any(String) }))
    } finally {
      await held.close()
    }
    expect(await rowsOf("tcp-port-taken")).toEqual([])
  })

  it("INVALID_CONFIG: 422 {field, value, suggestion} (and the problems), for a missing script, an unknown key and too many instances", async () => {
    const missing = await send("POST", "/api/processes", { name: "tcp-no-script", args: [] })
    expect(missing.status).toBe(422)
    expectJson(missing)
    expect(missing.body).toEqual(
      structured("INVALID_CONFIG", {
        field: "apps[0].script",
        value: null,
        suggestion: expect.any(String),
        problems: [
          { field: "apps[0].script", value: null, message: expect.any(String), suggestion: expect.any(String) }
        ]
      })
    )
    const typo = await send("POST", "/api/processes", { name: "tcp-typo", scirpt: process.execPath })
    expect(typo.status).toBe(422)
    expect(typo.body).toEqual(
      // An unknown key is a warning (as PM2 ignores it); the missing script it stands for is the error.
      structured("INVALID_CONFIG", {
        field: "apps[0].script",
        value: null,
        suggestion: 'rename "scirpt" to "script"',
        problems: expect.any(Array)
      })
    )
    // A runtime port override that is no port is INVALID_CONFIG too (and restarts nothing).
    const badPort = await send("POST", "/api/processes/tcp-app/restart", { port: "99999" })
    expect(badPort.status).toBe(422)
    expect(badPort.body).toEqual(
      structured("INVALID_CONFIG", {
        field: "port",
        value: "99999",
        suggestion: expect.any(String),
        problems: expect.any(Array)
      })
    )
    // More processes than one request may ask for (a huge number would stall the daemon for good).
    const huge = await send(
      "POST",
      "/api/processes",
      '{"name": "tcp-huge", "script": "/bin/sleep", "instances": 1e12}',
      { "content-type": "application/json" }
    )
    expect(huge.status).toBe(422)
    expect(huge.body).toEqual(
      structured("INVALID_CONFIG", {
        field: "apps[0].instances",
        value: 1e12,
        suggestion: expect.any(String),
        problems: expect.any(Array)
      })
    )
    const many = await send("POST", "/api/processes", {
      apps: [idleApp("tcp-many-a", { instances: 600 }), idleApp("tcp-many-b", { instances: 600 })]
    })
    expect(many.status).toBe(422)
    expect(many.body).toEqual(
      structured("INVALID_CONFIG", {
        field: "apps",
        value: 1200,
        suggestion: expect.any(String),
        problems: expect.any(Array)
      })
    )
    const resolved = await Effect.runPromise(
      Effect.flatMap(ConfigLoader, (loader) =>
        loader.fromDocument(idleApp("tcp-resolved"), process.cwd(), { environment: {} })
      ).pipe(Effect.provide(ConfigLoader.Default))
    )
    const definitions = await send("POST", "/api/processes", {
      definitions: [{ ...resolved.apps[0]!, instances: 5000 }]
    })
    expect(definitions.status).toBe(422)
    expect(definitions.body).toEqual(
      structured("INVALID_CONFIG", {
        field: "definitions[0].instances",
        value: 5000,
        suggestion: expect.any(String),
        problems: expect.any(Array)
      })
    )
    for (const name of ["tcp-huge", "tcp-many-a", "tcp-many-b", "tcp-resolved"])
      expect(await rowsOf(name), name).toEqual([])
    expect(await rowsOf("tcp-no-script")).toEqual([])
    expect(await rowsOf("tcp-typo")).toEqual([])
    expect(await rowsOf("tcp-app")).toEqual([expect.objectContaining({ status: "online", pid: kept.app!.pid })])
  })

  it("PROCESS_START_FAILED: 422 {process_id, reason, suggestion} for an executable that does not exist; the row stays errored", async () => {
    const created = await send("POST", "/api/processes", { name: "tcp-missing-exe", script: MISSING })
    expect(created.status).toBe(422)
    expectJson(created)
    expect(created.body).toEqual(
      structured("PROCESS_START_FAILED", {
        process_id: "tcp-missing-exe",
        reason: expect.stringContaining(MISSING),
        suggestion: expect.any(String)
      })
    )
    // A creation that fails before its first spawn is not kept; registered stopped, the row stays.
    expect(await rowsOf("tcp-missing-exe")).toEqual([])
    expect(
      (await send("POST", "/api/processes", { name: "tcp-missing-exe", script: MISSING, autostart: false })).status
    ).toBe(201)
    // Starting it fails the same way, and leaves the row errored.
    const start = await send("POST", "/api/processes/tcp-missing-exe/start")
    expect(start.status).toBe(422)
    expect(start.body).toEqual(
      structured("PROCESS_START_FAILED", {
        process_id: "tcp-missing-exe",
        reason: expect.stringContaining(MISSING),
        suggestion: expect.any(String)
      })
    )
    expect(await rowsOf("tcp-missing-exe")).toEqual([expect.objectContaining({ status: "errored", pid: null })])
  })

  it("INSUFFICIENT_RESOURCES: 422 {resource, available, required, suggestion} for a restart on one port of a two-instance app", async () => {
    const created = await send("POST", "/api/processes", idleApp("tcp-pair", { instances: 2 }))
    expect(created.status, created.raw).toBe(201)
    const pair = await ready("tcp-pair")
    expect(pair).toHaveLength(2)
    kept.pair = pair
    const one = String(await freePort())
    for (const route of ["restart", "reload"]) {
      const reply = await send("POST", `/api/processes/tcp-pair/${route}`, { port: one })
      expect(reply.status, route).toBe(422)
      expectJson(reply)
      expect(reply.body, route).toEqual(
        structured("INSUFFICIENT_RESOURCES", {
          resource: "ports",
          available: 1,
          required: 2,
          suggestion: expect.any(String)
        })
      )
    }
    // Refused before anything was stopped.
    expect((await rowsOf("tcp-pair")).map((row) => [row.id, row.status, row.pid])).toEqual(
      pair.map((row) => [row.id, "online", row.pid])
    )
  })

  it("BAD_REQUEST: 400 for malformed JSON and bad query or path values, 415 for another content type, 413 over 1 MiB", async () => {
    for (const body of ["{bad", '{"name": "x",}', "[1, 2", "nul", '{"a": 1} trailing']) {
      const reply = await send("POST", "/api/processes", body, { "content-type": "application/json" })
      expect(reply.status, body).toBe(400)
      expectJson(reply)
      expect(reply.body, body).toEqual(badRequest("body"))
    }
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const reply = await send("POST", "/api/processes", JSON.stringify(idleApp("tcp-typed")), { "content-type": type })
      expect(reply.status, type).toBe(415)
      expect(reply.body, type).toEqual(badRequest("content-type"))
    }
    const big = JSON.stringify(idleApp("tcp-big", { args: ["x".repeat(MiB)] }))
    const declared = await send("POST", "/api/processes", big, { "content-type": "application/json" })
    expect(declared.status).toBe(413)
    expect(declared.body).toEqual(badRequest("body"))
    const chunked = await send("POST", "/api/processes", big, {
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    })
    expect(chunked.status).toBe(413)
    expect(chunked.body).toEqual(badRequest("body"))

    const queries: ReadonlyArray<readonly [string, string]> = [
      ["/api/processes/tcp-app/logs?lines=abc", "lines"],
      ["/api/processes/tcp-app/logs?lines=-1", "lines"],
      ["/api/processes/tcp-app/logs?since=garbage", "since"],
      ["/api/processes/tcp-app/logs?grep=(", "grep"],
      ["/api/processes/tcp-app/logs?stream=both", "stream"],
      ["/api/processes/tcp-app/ready?timeout=soon", "timeout"],
      ["/api/processes?status=bogus", "status"],
      ["/api/processes?status=online&status=stopped", "status"],
      ["/api/processes/%zz", "path"]
    ]
    for (const [urlPath, field] of queries) {
      const reply = await send("GET", urlPath)
      expect(reply.status, urlPath).toBe(400)
      expect(reply.body, urlPath).toEqual(badRequest(field))
    }
    expect(await rowsOf("tcp-typed")).toEqual([])
    expect(await rowsOf("tcp-big")).toEqual([])
  })

  it("READY_TIMEOUT: 504 {process_id, waited_ms, states} for an app whose health check cannot pass", async () => {
    const closed = await freePort()
    const created = await send(
      "POST",
      "/api/processes",
      idleApp("tcp-never-healthy", {
        health_check: { check_type: "http", url: `http://127.0.0.1:${closed}/health`, interval: 1, timeout: 1 }
      })
    )
    expect(created.status, created.raw).toBe(201)
    const id = String(created.body.processes[0].id)
    const reply = await send("GET", "/api/processes/tcp-never-healthy/ready?timeout=1s")
    expect(reply.status).toBe(504)
    expectJson(reply)
    expect(reply.body).toEqual(
      structured("READY_TIMEOUT", {
        process_id: "tcp-never-healthy",
        waited_ms: expect.any(Number),
        states: { [id]: expect.any(String) }
      })
    )
    expect(reply.body.error.details.waited_ms).toBeGreaterThanOrEqual(900)
    // Stopped, so that it does not go on failing its check for the rest of the file.
    const stopped = await send("POST", "/api/processes/tcp-never-healthy/stop")
    expect(stopped.status).toBe(200)
  })

  it("unknown routes answer 404 and wrong methods 405 in the simple shape {success:false, error}", async () => {
    for (const [method, urlPath] of [
      ["GET", "/nope"],
      ["GET", "/api/nope"],
      ["POST", "/api/processes/tcp-app/stop/now"],
      ["GET", "/api/processes/tcp-app/logs/extra"]
    ] as const) {
      const reply = await send(method, urlPath)
      expect(reply.status, `${method} ${urlPath}`).toBe(404)
      expectJson(reply)
      expect(reply.body, `${method} ${urlPath}`).toEqual(simpleError)
    }
    for (const [method, urlPath, allow] of [
      ["PUT", "/api/processes", "GET, POST, DELETE"],
      ["PATCH", "/api/processes/tcp-app", "GET, DELETE"],
      ["GET", "/api/processes/tcp-app/stop", "POST"],
      ["DELETE", "/api/processes/tcp-app/restart", "POST"],
      ["POST", "/api/status", "GET"],
      ["TRACE", "/api/processes", "GET, POST, DELETE"]
    ] as const) {
      const reply = await send(method, urlPath)
      expect(reply.status, `${method} ${urlPath}`).toBe(405)
      expect(reply.body, `${method} ${urlPath}`).toEqual(simpleError)
      expect(reply.headers.allow, `${method} ${urlPath}`).toBe(allow)
    }
  })

  it("the daemon routes are 404 on TCP (with the key, by any method and spelling), and the daemon keeps running", async () => {
    for (const [method, urlPath] of [
      ["POST", "/daemon/kill"],
      ["GET", "/daemon/kill"],
      ["POST", "/daemon/resurrect"],
      ["POST", "/daemon/restart"],
      ["PUT", "/daemon/web"],
      ["POST", "//daemon/kill"],
      ["POST", "/%64aemon/kill"],
      ["POST", "/DAEMON/kill"]
    ] as const) {
      const reply = await send(method, urlPath, method === "PUT" ? { stop: true } : undefined)
      expect(reply.status, `${method} ${urlPath}`).toBe(404)
      expect(reply.body, `${method} ${urlPath}`).toEqual(simpleError)
    }
    // A kill that was taken marks the daemon killed before it answers; a mutating request over the
    // socket saves state.json, which must still say it was not.
    expect((await daemon.request("POST", "/api/processes/ghost/stop")).status).toBe(404)
    expect(JSON.parse(fs.readFileSync(path.join(daemon.home, "state.json"), "utf8")).killed).toBe(false)
    const status = await daemon.request("GET", "/api/status")
    expect(status.status).toBe(200)
    expect(status.body.web).toEqual({ host: "localhost", port, auth: true })
    expect(isAlive(daemon.pid)).toBe(true)
  })

  it("after the whole table the daemon answers and every app is as the table left it", async () => {
    const viaTcp = await send("GET", "/api/status")
    expect(viaTcp.status, viaTcp.raw).toBe(200)
    expect(viaTcp.body).toMatchObject({ pid: daemon.pid, web: { host: "localhost", port, auth: true } })
    const rows = (await send("GET", "/api/processes")).body as Array<Row>
    const byName = (name: string) =>
      rows.filter((row) => row.name === name).map((row) => ({ id: row.id, status: row.status, pid: row.pid }))
    expect(rows.map((row) => row.name).sort()).toEqual([
      "tcp-app",
      "tcp-missing-exe",
      "tcp-never-healthy",
      "tcp-pair",
      "tcp-pair"
    ])
    expect(byName("tcp-app")).toEqual([{ id: kept.app!.id, status: "online", pid: kept.app!.pid }])
    expect(byName("tcp-pair")).toEqual(kept.pair!.map((row) => ({ id: row.id, status: "online", pid: row.pid })))
    expect(byName("tcp-missing-exe")).toEqual([{ id: expect.any(Number), status: "errored", pid: null }])
    expect(byName("tcp-never-healthy")).toEqual([{ id: expect.any(Number), status: "stopped", pid: null }])
    for (const row of [kept.app!, ...kept.pair!]) expect(isAlive(row.pid!), row.name).toBe(true)
    // The socket agrees, and state.json lists every app.
    expect((await daemon.request("GET", "/api/processes")).body).toEqual(
      rows.map((row) => expect.objectContaining({ id: row.id, status: row.status }))
    )
    const saved = fs.readFileSync(path.join(daemon.home, "state.json"), "utf8")
    for (const name of ["tcp-app", "tcp-pair", "tcp-missing-exe", "tcp-never-healthy"])
      expect(saved).toContain(`"${name}"`)
  })
})

describe("SERVICE_UNAVAILABLE over TCP", () => {
  it("answers 503 {reason} while the daemon stops an app that ignores SIGTERM, then the daemon exits", async () => {
    const own = await startDaemon()
    try {
      const ownPort = await freeListenerPort()
      await openWeb(own, { port: ownPort, api_key: KEY })
      const ownSend = tcpClient(own, ownPort, { "x-api-key": KEY })
      const pidsFile = path.join(own.home, "stubborn.json")
      const created = await ownSend("POST", "/api/processes", {
        name: "stubborn",
        script: path.resolve(__dirname, "../fixtures/ignore-sigterm.js"),
        env: { PIDS_FILE: pidsFile },
        kill_timeout: "6s"
      })
      expect(created.status, created.raw).toBe(201)
      // The fixture writes its pids once its SIGTERM handler is in place.
      await eventually(
        () => fs.existsSync(pidsFile) && fs.readFileSync(pidsFile, "utf8").endsWith("}"),
        "the app to ignore SIGTERM"
      )
      const pids = JSON.parse(fs.readFileSync(pidsFile, "utf8")) as { child: number; grandchild: number }
      expect((await ownSend("GET", "/api/status")).status).toBe(200)

      own.child.kill("SIGTERM")
      // For as long as kill_timeout the app holds the daemon in its shutdown, listener still open.
      const unavailable = await eventually(
        async () => {
          const reply = await ownSend("GET", "/api/status", undefined, {}, { timeoutMs: 2_000 })
          return reply.status === 503 ? reply : undefined
        },
        "503 over TCP while stopping",
        5_000
      )
      expectJson(unavailable)
      expect(unavailable.body).toEqual(structured("SERVICE_UNAVAILABLE", { reason: "shutting down" }))
      for (const [method, urlPath] of [
        ["GET", "/health"],
        ["GET", "/api/processes"],
        ["POST", "/api/processes/stubborn/start"]
      ] as const) {
        const reply = await ownSend(method, urlPath, undefined, {}, { timeoutMs: 2_000 })
        expect(reply.status, `${method} ${urlPath}`).toBe(503)
        expect(reply.body, `${method} ${urlPath}`).toEqual(
          structured("SERVICE_UNAVAILABLE", { reason: "shutting down" })
        )
      }
      // Without the key the answer is still 401: shutting down opens nothing.
      const anonymous = await tcpClient(own, ownPort)("GET", "/api/processes", undefined, {}, { timeoutMs: 2_000 })
      expect(anonymous.status).toBe(401)

      expect(await own.exited).toBe(0)
      expect(isAlive(pids.child)).toBe(false)
      expect(isAlive(pids.grandchild)).toBe(false)
    } finally {
      await own.stop()
    }
  })
})
