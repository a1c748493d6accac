/**
 * `/api/processes…` through a real daemon's unix socket: creation in its three body forms, the
 * list filters, detail, every action, deletion, readiness and metrics — with their success bodies
 * and their structured errors (docs/api.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { type Daemon, eventually, idleApp, isAlive, startDaemon } from "./daemon"
import { actionResult, badRequest, freePort, holdPort, ISO_UTC, structured, summary, UPTIME } from "./shapes"
import { connectWs } from "../support/wsClient"

const fixture = (name: string) => path.resolve(__dirname, "../fixtures", name)

let daemon: Daemon
beforeAll(async () => {
  daemon = await startDaemon()
})
afterAll(async () => {
  await daemon?.stop()
})

const ready = async (target: string) => {
  const reply = await daemon.request("GET", `/api/processes/${encodeURIComponent(target)}/ready?timeout=30s`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as Array<{ id: number; pid: number; status: string; port: string | null }>
}

const list = async (query = "") => {
  const reply = await daemon.request("GET", `/api/processes${query}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as Array<{
    id: number
    name: string
    status: string
    pid: number | null
    namespace: string
    restarts: number
  }>
}

describe("POST /api/processes", () => {
  it("creates one app from {name, script, args}: 201 with its summary", async () => {
    // Node with its arguments: GET /api/processes/{id} below reads this config back.
    const reply = await daemon.request(
      "POST",
      "/api/processes",
      idleApp("one", { args: ["-e", "setInterval(() => {}, 1000)"] })
    )
    expect(reply.status).toBe(201)
    expect(reply.headers["content-type"]).toMatch(/^application\/json/)
    expect(reply.body).toEqual(
      actionResult([summary({ name: "one", status: expect.stringMatching(/^(starting|online)$/) })])
    )
    expect(isAlive(reply.body.processes[0].pid)).toBe(true)
    const [row] = await ready("one")
    expect(row).toEqual(summary({ name: "one", status: "online", id: reply.body.processes[0].id }))
  })

  it("an unknown key in app settings is not refused: 201, with one warning naming the closest key", async () => {
    const reply = await daemon.request("POST", "/api/processes", { apps: [{ ...idleApp("warned"), instance: 2 }] })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body.processes.map((row: { name: string }) => row.name)).toEqual(["warned"])
    expect(reply.body.warnings).toEqual([
      'apps[0].instance: unknown setting "instance" — did you mean "instances"? (ignored)'
    ])
    await ready("warned")
    // Without any, there is no warnings key; a bad value of a known key is still INVALID_CONFIG.
    expect((await daemon.request("POST", "/api/processes", idleApp("unwarned"))).body).not.toHaveProperty("warnings")
    const bad = await daemon.request("POST", "/api/processes", {
      ...idleApp("bad-value"),
      instance: 2,
      max_memory_restart: "12X"
    })
    expect(bad.status).toBe(422)
    expect(bad.body.error).toMatchObject({
      code: "INVALID_CONFIG",
      details: { field: "apps[0].max_memory_restart", value: "12X" }
    })
    expect((await list()).map((row) => row.name)).not.toContain("bad-value")
  })

  it("creates every app of {apps:[...]} together", async () => {
    const reply = await daemon.request("POST", "/api/processes", {
      apps: [idleApp("two-a"), idleApp("two-b", { instances: 2 })]
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual(
      actionResult([
        summary({ name: "two-a" }),
        summary({ name: "two-b", instance: 0 }),
        summary({ name: "two-b", instance: 1 })
      ])
    )
    expect(reply.body.message).toContain("2 apps")
    const ids = reply.body.processes.map((row: { id: number }) => row.id)
    expect(new Set(ids).size).toBe(3)
    await ready("two-a")
    await ready("two-b")
  })

  it("takes the CLI's {definitions, env}: resolved definitions started with the caller's environment", async () => {
    const out = fs.mkdtempSync(path.join(daemon.home, "env-"))
    const definitions = await Effect.runPromise(
      Effect.flatMap(ConfigLoader, (loader) =>
        loader.fromDocument(
          { name: "resolved", script: fixture("write-env.js"), env: { ENV_OUT_DIR: out } },
          process.cwd(),
          { environment: {} }
        )
      ).pipe(Effect.provide(ConfigLoader.Default))
    )
    const reply = await daemon.request("POST", "/api/processes", {
      definitions: definitions.apps,
      env: { FROM_CALLER: "yes", PATH: process.env.PATH ?? "" }
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    expect(reply.body).toEqual(actionResult([summary({ name: "resolved" })]))
    const written = await eventually(
      () => fs.existsSync(path.join(out, "0.json")) && JSON.parse(fs.readFileSync(path.join(out, "0.json"), "utf8")),
      "the app's environment"
    )
    expect(written).toMatchObject({
      FROM_CALLER: "yes",
      ENV_OUT_DIR: out,
      PMFX_INSTANCE_ID: "0",
      NODE_APP_INSTANCE: "0"
    })
    // The caller's environment, not the daemon's, is the base.
    expect(written.PMFX_HOME).toBeUndefined()
  })

  it("refuses resolved definitions whose name the loader would have refused", async () => {
    const definitions = await Effect.runPromise(
      Effect.flatMap(ConfigLoader, (loader) =>
        loader.fromDocument(idleApp("placeholder"), process.cwd(), { environment: {} })
      ).pipe(Effect.provide(ConfigLoader.Default))
    )
    // Names with spaces or `/` are fine now (`../escape` only names files through its encoded form).
    for (const name of ["42", "all", "..", " padded", "tab\there", "x".repeat(101), ""]) {
      const reply = await daemon.request("POST", "/api/processes", { definitions: [{ ...definitions.apps[0], name }] })
      expect(reply.status, name).toBe(422)
      expect(reply.body, name).toMatchObject(
        structured("INVALID_CONFIG", { field: "definitions[0].name", value: name })
      )
    }
    expect((await daemon.request("GET", "/api/processes/42")).status).toBe(404)
  })

  it("resolves relative paths of {apps, cwd} against cwd", async () => {
    const dir = fs.mkdtempSync(path.join(daemon.home, "cwd-"))
    fs.copyFileSync(fixture("crash-if-exists.js"), path.join(dir, "app.js"))
    const reply = await daemon.request("POST", "/api/processes", {
      apps: [{ name: "relative", script: "app.js", env: { CRASH_FLAG: path.join(dir, "no-such-flag") } }],
      cwd: dir
    })
    expect(reply.status, JSON.stringify(reply.body)).toBe(201)
    const detail = await daemon.request("GET", "/api/processes/relative")
    expect(detail.body.config.script).toBe(path.join(dir, "app.js"))
    const relative = await daemon.request("POST", "/api/processes", { apps: [idleApp("relative-2")], cwd: "somewhere" })
    expect(relative.status).toBe(400)
    expect(relative.body).toEqual(badRequest("cwd"))
  })

  it("records every change in state.json before it answers", async () => {
    const savedApps = () => {
      const state = JSON.parse(fs.readFileSync(path.join(daemon.home, "state.json"), "utf8"))
      return state.engine.apps.map(
        (app: { definition: { name: string }; rows: Array<{ desired: string }> }) =>
          `${app.definition.name}:${app.rows[0]!.desired}`
      )
    }
    expect((await daemon.request("POST", "/api/processes", idleApp("saved"))).status).toBe(201)
    expect(savedApps()).toContain("saved:running")
    expect((await daemon.request("POST", "/api/processes/saved/stop")).status).toBe(200)
    expect(savedApps()).toContain("saved:stopped")
    // A creation that fails before its first spawn is not kept, so not saved either.
    expect(
      (await daemon.request("POST", "/api/processes", { name: "saved-broken", script: "/nonexistent/pmfx-x" })).status
    ).toBe(422)
    expect(savedApps()).not.toContain("saved-broken:running")
    // A failed request that changed the table (a start that left the row errored) is saved.
    expect(
      (
        await daemon.request("POST", "/api/processes", {
          name: "saved-broken",
          script: "/nonexistent/pmfx-x",
          autostart: false
        })
      ).status
    ).toBe(201)
    expect((await daemon.request("POST", "/api/processes/saved-broken/start")).status).toBe(422)
    expect(savedApps()).toContain("saved-broken:running")
    expect((await daemon.request("DELETE", "/api/processes/saved")).status).toBe(204)
    expect((await daemon.request("DELETE", "/api/processes/saved-broken")).status).toBe(204)
    expect(savedApps().filter((app: string) => app.startsWith("saved"))).toEqual([])
  })

  it("answers 409 PROCESS_ALREADY_EXISTS for a name that is taken", async () => {
    const reply = await daemon.request("POST", "/api/processes", idleApp("one"))
    expect(reply.status).toBe(409)
    expect(reply.body).toEqual(
      structured("PROCESS_ALREADY_EXISTS", { process_id: "one", suggestion: expect.any(String) })
    )
  })

  it("answers 422 INVALID_CONFIG naming apps[0].script when script is missing, and creates nothing", async () => {
    const reply = await daemon.request("POST", "/api/processes", { name: "no-script", args: [] })
    expect(reply.status).toBe(422)
    expect(reply.body).toMatchObject(
      structured("INVALID_CONFIG", { field: "apps[0].script", value: null, suggestion: expect.any(String) })
    )
    expect(await list("?name=no-script")).toEqual([])
  })

  it("answers 422 PROCESS_START_FAILED for a missing executable and keeps no row; a start that fails leaves its row errored", async () => {
    const reply = await daemon.request("POST", "/api/processes", {
      name: "missing-exe",
      script: "/nonexistent/pmfx-test-binary"
    })
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual(
      structured("PROCESS_START_FAILED", {
        process_id: "missing-exe",
        reason: expect.stringContaining("/nonexistent/pmfx-test-binary"),
        suggestion: expect.any(String)
      })
    )
    // A creation that fails before its first spawn is not kept: the name is free for the fixed app.
    expect((await daemon.request("GET", "/api/processes/missing-exe")).status).toBe(404)
    // Registered stopped (autostart: false), the row exists; its failed start leaves it errored.
    expect(
      (
        await daemon.request("POST", "/api/processes", {
          name: "missing-exe",
          script: "/nonexistent/pmfx-test-binary",
          autostart: false
        })
      ).status
    ).toBe(201)
    expect((await daemon.request("POST", "/api/processes/missing-exe/start")).body).toMatchObject(
      structured("PROCESS_START_FAILED", { process_id: "missing-exe" })
    )
    const detail = await daemon.request("GET", "/api/processes/missing-exe")
    expect(detail.status).toBe(200)
    expect(detail.body).toMatchObject({ name: "missing-exe", status: "errored", pid: null })
  })

  it("answers 409 PORT_IN_USE with the port a foreign listener holds, and creates nothing", async () => {
    const held = await holdPort()
    try {
      const reply = await daemon.request("POST", "/api/processes", idleApp("port-taken", { port: String(held.port) }))
      expect(reply.status).toBe(409)
      expect(reply.body).toEqual(structured("PORT_IN_USE", { port: held.port, suggestion: expect.any(String) }))
      expect(await list("?name=port-taken")).toEqual([])
    } finally {
      await held.close()
    }
  })

  it("answers 422 INSUFFICIENT_RESOURCES when an auto: range has too few ports", async () => {
    const port = await freePort()
    const reply = await daemon.request(
      "POST",
      "/api/processes",
      idleApp("few-ports", { port: `auto:${port}-${port}`, instances: 2 })
    )
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual(
      structured("INSUFFICIENT_RESOURCES", {
        resource: "ports",
        available: expect.any(Number),
        required: 2,
        suggestion: expect.any(String)
      })
    )
    expect(reply.body.error.details.available).toBeLessThan(2)
    // A fixed range that is too short is caught by validation instead (docs/decisions.md).
    const fixed = await daemon.request(
      "POST",
      "/api/processes",
      idleApp("few-fixed", { port: `${port}-${port}`, instances: 2 })
    )
    expect(fixed.status).toBe(422)
    expect(fixed.body).toMatchObject(structured("INVALID_CONFIG", { field: "apps[0].port" }))
  })

  it("answers 400 BAD_REQUEST for a body that is not an object or not resolved definitions", async () => {
    for (const body of ["[1,2]", '"text"', "42", "null"]) {
      const reply = await daemon.request("POST", "/api/processes", body, { "content-type": "application/json" })
      expect(reply.status, body).toBe(400)
      expect(reply.body).toEqual(badRequest("body"))
    }
    const definitions = await daemon.request("POST", "/api/processes", { definitions: [{ name: "half" }] })
    expect(definitions.status).toBe(400)
    expect(definitions.body).toEqual(badRequest("definitions"))
  })
})

describe("GET /api/processes", () => {
  beforeAll(async () => {
    const reply = await daemon.request("POST", "/api/processes", idleApp("ns-app", { namespace: "ns-test" }))
    expect(reply.status).toBe(201)
    await ready("ns-app")
  })

  it("lists every row as a summary", async () => {
    const rows = await list()
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(["one", "two-a", "two-b", "two-b", "missing-exe", "ns-app"])
    )
    for (const row of rows) {
      expect(row).toEqual(
        summary({
          name: row.name,
          namespace: row.namespace,
          instance: expect.any(Number),
          pid: row.pid === null ? null : expect.any(Number),
          status: row.status,
          restarts: expect.any(Number)
        })
      )
    }
    expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => a - b))
  })

  it("filters by status (a comma list, exact)", async () => {
    const errored = await list("?status=errored")
    expect(errored.map((row) => row.name)).toEqual(["missing-exe"])
    const both = await list("?status=online,errored")
    expect(both.every((row) => row.status === "online" || row.status === "errored")).toBe(true)
    expect(both.length).toBe((await list("?status=online")).length + 1)
    expect(await list("?status=stopping")).toEqual([])
  })

  it("filters by exact name and by a * glob", async () => {
    expect((await list("?name=two-b")).map((row) => row.name)).toEqual(["two-b", "two-b"])
    expect((await list("?name=two")).map((row) => row.name)).toEqual([])
    expect((await list("?name=two-*")).map((row) => row.name)).toEqual(["two-a", "two-b", "two-b"])
    expect((await list("?name=*-exe")).map((row) => row.name)).toEqual(["missing-exe"])
  })

  it("matches a glob in linear time (a pathological pattern does not stall the daemon)", async () => {
    const long = "a".repeat(100)
    expect((await daemon.request("POST", "/api/processes", idleApp(long))).status).toBe(201)
    const slow = await daemon.request(
      "GET",
      `/api/processes?name=${"a*".repeat(40)}b`,
      undefined,
      {},
      { timeoutMs: 5_000 }
    )
    expect(slow.status).toBe(200)
    expect(slow.body).toEqual([])
    expect((await list(`?name=${"a*".repeat(40)}`)).map((row) => row.name)).toEqual([long])
    expect((await daemon.request("DELETE", `/api/processes/${long}`)).status).toBe(204)
  })

  it("filters by namespace", async () => {
    expect((await list("?namespace=ns-test")).map((row) => row.name)).toEqual(["ns-app"])
    expect((await list("?namespace=ns-test&status=errored")).length).toBe(0)
  })

  it("answers 400 BAD_REQUEST naming the field for an unknown status", async () => {
    for (const query of ["?status=bogus", "?status=online,bogus", "?status=", "?status=,"]) {
      const reply = await daemon.request("GET", `/api/processes${query}`)
      expect(reply.status, query).toBe(400)
      expect(reply.body).toEqual(badRequest("status"))
    }
  })
})

describe("GET /api/processes/{id}", () => {
  it("gives the detail by numeric id and by name", async () => {
    const [row] = await list("?name=one")
    const byId = await daemon.request("GET", `/api/processes/${row!.id}`)
    expect(byId.status).toBe(200)
    expect(byId.body).toEqual({
      ...summary({ id: row!.id, name: "one", status: "online", restarts: expect.any(Number) }),
      app_instances: [row!.id],
      config: {
        script: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)"],
        shell: null,
        instances: 1,
        exec_mode: "fork",
        max_memory_restart: null,
        port: null,
        env: {},
        cwd: expect.any(String),
        depends_on: [],
        ready_log_line: null,
        config_file: null,
        autorestart: true,
        watch: { enabled: false, paths: [], ignore: [] }
      },
      waiting_for: null,
      health_check: {
        enabled: false,
        check_type: null,
        url: null,
        status: null,
        last_check: null,
        response_time: null
      },
      logs: {
        out_file: path.join(daemon.home, "logs", "one-0-out.log"),
        error_file: path.join(daemon.home, "logs", "one-0-err.log")
      },
      cron_restart: null,
      last_exit: null
    })
    const byName = await daemon.request("GET", "/api/processes/one")
    expect(byName.status).toBe(200)
    expect(byName.body.id).toBe(row!.id)
  })

  it("gives the lowest id of a multi-instance app, listing every row in app_instances", async () => {
    const rows = await list("?name=two-b")
    const reply = await daemon.request("GET", "/api/processes/two-b")
    expect(reply.body).toMatchObject({
      id: rows[0]!.id,
      instance: 0,
      app_instances: rows.map((r) => r.id),
      config: { instances: 2 }
    })
    expect(reply.body.logs.out_file).toBe(path.join(daemon.home, "logs", "two-b-0-out.log"))
  })

  it("answers 404 PROCESS_NOT_FOUND with the id asked for", async () => {
    const reply = await daemon.request("GET", "/api/processes/nope")
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual(structured("PROCESS_NOT_FOUND", { process_id: "nope", suggestion: expect.any(String) }))
    const numeric = await daemon.request("GET", "/api/processes/987654")
    expect(numeric.status).toBe(404)
    expect(numeric.body.error.details.process_id).toBe("987654")
  })

  it("answers 404, never 500, for odd ids; 400 naming id for one too long to be a name", async () => {
    const odd = [
      "..%2f..%2fetc",
      "..%2F..%2Fetc%2Fpasswd",
      "%2e%2e",
      "a%00b",
      "%20",
      "%F0%9F%92%A5",
      "a%2Fb%2Fc",
      "%3Cscript%3E",
      "-1",
      "1e3",
      "0x10"
    ]
    for (const id of odd) {
      const reply = await daemon.request("GET", `/api/processes/${id}`)
      expect(reply.status, id).toBe(404)
      expect(reply.body.success, id).toBe(false)
    }
    const long = await daemon.request("GET", `/api/processes/${"x".repeat(3000)}`)
    expect(long.status).toBe(400)
    expect(long.body.error).toMatchObject({ code: "BAD_REQUEST", details: { field: "id" } })
  })
})

describe("actions", () => {
  it("start answers 409 PROCESS_ALREADY_RUNNING with the pid when every row runs", async () => {
    const [row] = await list("?name=one")
    const reply = await daemon.request("POST", "/api/processes/one/start")
    expect(reply.status).toBe(409)
    expect(reply.body).toEqual(
      structured("PROCESS_ALREADY_RUNNING", { process_id: "one", pid: row!.pid, suggestion: expect.any(String) })
    )
  })

  it("stop stops the rows and is idempotent (200 both times)", async () => {
    const [before] = await list("?name=one")
    const first = await daemon.request("POST", "/api/processes/one/stop")
    expect(first.status).toBe(200)
    expect(first.body).toEqual(
      actionResult([
        summary({ id: before!.id, name: "one", status: "stopped", pid: null, restarts: expect.any(Number) })
      ])
    )
    await eventually(() => !isAlive(before!.pid!), "the stopped process to exit")
    const second = await daemon.request("POST", "/api/processes/one/stop")
    expect(second.status).toBe(200)
    expect(second.body.processes[0]).toMatchObject({ status: "stopped", pid: null })
  })

  it("start starts a stopped app", async () => {
    const reply = await daemon.request("POST", "/api/processes/one/start")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual(
      actionResult([
        summary({ name: "one", status: expect.stringMatching(/^(starting|online)$/), restarts: expect.any(Number) })
      ])
    )
    await ready("one")
  })

  it("start of an errored app answers its start failure", async () => {
    const reply = await daemon.request("POST", "/api/processes/missing-exe/start")
    expect(reply.status).toBe(422)
    expect(reply.body).toMatchObject(structured("PROCESS_START_FAILED", { process_id: "missing-exe" }))
  })

  it("stop of an app that gave up (errored) makes it stopped, publishes the change and saves it; start runs it again", async () => {
    const flag = path.join(daemon.home, "gives-up.flag")
    fs.writeFileSync(flag, "")
    const created = await daemon.request("POST", "/api/processes", {
      name: "gives-up",
      script: fixture("crash-if-exists.js"),
      max_restarts: 1,
      min_uptime: "200ms",
      env: { CRASH_FLAG: flag }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await eventually(
      async () => (await list("?name=gives-up"))[0]?.status === "errored",
      "gives-up to give up (errored)"
    )

    const feed = await connectWs(`ws+unix://${daemon.socket}:/ws`)
    try {
      await feed.next((m) => m.type === "process_list", "process_list")
      const from = feed.messages.length
      const stopped = await daemon.request("POST", "/api/processes/gives-up/stop")
      expect(stopped.status).toBe(200)
      expect(stopped.body.processes).toEqual([
        expect.objectContaining({ name: "gives-up", status: "stopped", pid: null })
      ])
      const change = await feed.next(
        (m) => m.type === "process_status" && m.data.name === "gives-up",
        "the status change of gives-up",
        { from }
      )
      expect(change.data).toMatchObject({ status: "stopped", previous_status: "errored", pid: null })
    } finally {
      feed.close()
    }
    expect((await daemon.request("GET", "/api/processes/gives-up")).body.status).toBe("stopped")
    expect((await list("?status=errored")).map((row) => row.name)).not.toContain("gives-up")
    const state = JSON.parse(fs.readFileSync(path.join(daemon.home, "state.json"), "utf8"))
    const saved = state.engine.apps.find((app: { definition: { name: string } }) => app.definition.name === "gives-up")
    expect(saved.rows[0].desired).toBe("stopped")
    // It stays stopped, and a second stop changes nothing.
    expect((await daemon.request("POST", "/api/processes/gives-up/stop")).body.processes[0].status).toBe("stopped")

    fs.rmSync(flag)
    const started = await daemon.request("POST", "/api/processes/gives-up/start")
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    expect(started.body.processes[0].status).toMatch(/^(starting|online)$/)
    await ready("gives-up")
    expect((await daemon.request("DELETE", "/api/processes/gives-up")).status).toBe(204)
  })

  it("restart without a body replaces the process", async () => {
    const [before] = await list("?name=one")
    const reply = await daemon.request("POST", "/api/processes/one/restart")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual(actionResult([summary({ id: before!.id, name: "one", restarts: expect.any(Number) })]))
    expect(reply.body.processes[0].pid).not.toBe(before!.pid)
    expect(reply.body.processes[0].restarts).toBe(before!.restarts + 1)
  })

  it("restart with {port} runs that one time on the port; an empty object is no override", async () => {
    const port = await freePort()
    const reply = await daemon.request("POST", "/api/processes/one/restart", { port: String(port) })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.processes[0].port).toBe(String(port))
    expect(reply.body.message).toContain(String(port))
    const plain = await daemon.request("POST", "/api/processes/one/restart", {})
    expect(plain.status).toBe(200)
    expect(plain.body.processes[0].port).toBeNull()
  })

  it("restart with a runtime range too short for the instances answers 422 INSUFFICIENT_RESOURCES", async () => {
    const port = await freePort()
    const reply = await daemon.request("POST", "/api/processes/two-b/restart", { port: String(port) })
    expect(reply.status).toBe(422)
    expect(reply.body).toEqual(
      structured("INSUFFICIENT_RESOURCES", {
        resource: "ports",
        available: 1,
        required: 2,
        suggestion: expect.any(String)
      })
    )
  })

  it("restart answers 400 BAD_REQUEST for a body that is not {port: string}", async () => {
    for (const body of [{ port: 4000 }, [1], { port: "4000", extra: true }, "text", 7]) {
      const reply = await daemon.request("POST", "/api/processes/one/restart", JSON.stringify(body), {
        "content-type": "application/json"
      })
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(reply.body).toEqual(badRequest("port"))
    }
    const malformed = await daemon.request("POST", "/api/processes/one/restart", "{port:", {
      "content-type": "application/json"
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual(badRequest("body"))
    const unknown = await daemon.request("POST", "/api/processes/nope/restart")
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual(
      structured("PROCESS_NOT_FOUND", { process_id: "nope", suggestion: expect.any(String) })
    )
  })

  it("reload of a one-instance app restarts it and says so in restarted_instead", async () => {
    await ready("one")
    const reply = await daemon.request("POST", "/api/processes/one/reload")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      ...actionResult([summary({ name: "one", restarts: expect.any(Number) })]),
      restarted_instead: ["one"]
    })
  })

  it("reload of a two-instance app replaces them one at a time", async () => {
    const before = await list("?name=two-b")
    const reply = await daemon.request("POST", "/api/processes/two-b/reload")
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    expect(reply.body.restarted_instead).toEqual([])
    expect(reply.body.processes.map((row: { id: number }) => row.id)).toEqual(before.map((row) => row.id))
    for (const [i, row] of reply.body.processes.entries()) expect(row.pid).not.toBe(before[i]!.pid)
  })

  it("stop, start and metrics answer 404 PROCESS_NOT_FOUND for an unknown id", async () => {
    for (const [method, route] of [
      ["POST", "stop"],
      ["POST", "start"],
      ["POST", "reload"],
      ["GET", "metrics"],
      ["GET", "logs"],
      ["GET", "ready"]
    ] as const) {
      const reply = await daemon.request(method, `/api/processes/nope/${route}`)
      expect(reply.status, route).toBe(404)
      expect(reply.body, route).toEqual(
        structured("PROCESS_NOT_FOUND", { process_id: "nope", suggestion: expect.any(String) })
      )
    }
  })
})

describe("GET /api/processes/{id}/ready", () => {
  it("answers 200 with the rows once they are online", async () => {
    const rows = await ready("two-a")
    expect(rows).toEqual([summary({ name: "two-a", status: "online", restarts: expect.any(Number) })])
  })

  it("answers 504 READY_TIMEOUT for an app whose health check cannot pass", async () => {
    const closed = await freePort()
    const created = await daemon.request(
      "POST",
      "/api/processes",
      idleApp("never-healthy", {
        health_check: { check_type: "http", url: `http://127.0.0.1:${closed}/health`, interval: 1, timeout: 1 }
      })
    )
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = String(created.body.processes[0].id)
    const reply = await daemon.request("GET", "/api/processes/never-healthy/ready?timeout=1s")
    expect(reply.status).toBe(504)
    expect(reply.body).toEqual(
      structured("READY_TIMEOUT", {
        process_id: "never-healthy",
        waited_ms: expect.any(Number),
        states: { [id]: expect.any(String) }
      })
    )
    expect(reply.body.error.details.waited_ms).toBeGreaterThanOrEqual(900)
    const detail = await daemon.request("GET", "/api/processes/never-healthy")
    const check = detail.body.health_check
    expect(Object.keys(check).sort()).toEqual(["check_type", "enabled", "last_check", "response_time", "status", "url"])
    expect(check).toMatchObject({ enabled: true, check_type: "http", url: `http://127.0.0.1:${closed}/health` })
    expect(check.status).toMatch(/^(unknown|unhealthy)$/)
    if (check.last_check !== null) expect(check.last_check).toMatch(ISO_UTC)
    expect((await daemon.request("DELETE", "/api/processes/never-healthy")).status).toBe(204)
  })

  it("answers 400 BAD_REQUEST naming timeout for a timeout over 10 minutes; 10m itself is taken", async () => {
    await ready("one")
    for (const timeout of ["11m", "601s", "600001", "1h", "30d", "99999999999999999999"]) {
      const reply = await daemon.request("GET", `/api/processes/one/ready?timeout=${timeout}`)
      expect(reply.status, timeout).toBe(400)
      expect(reply.body, timeout).toEqual(badRequest("timeout"))
      expect(reply.body.error.details.reason, timeout).toContain("longer than 10m")
    }
    for (const timeout of ["10m", "600s", "600000"]) {
      expect((await daemon.request("GET", `/api/processes/one/ready?timeout=${timeout}`)).status, timeout).toBe(200)
    }
  })

  it("answers 400 BAD_REQUEST for a timeout that is not a duration", async () => {
    for (const timeout of ["abc", "-1s", "1x", ""]) {
      const reply = await daemon.request("GET", `/api/processes/one/ready?timeout=${timeout}`)
      expect(reply.status, timeout).toBe(400)
      expect(reply.body).toEqual(badRequest("timeout"))
    }
  })
})

describe("GET /api/processes/{id}/metrics", () => {
  it("gives CPU, detailed memory, uptime, restarts, errors and the history (docs/api.md)", async () => {
    const [row] = await list("?name=two-a")
    const reply = await eventually(async () => {
      const r = await daemon.request("GET", `/api/processes/${row!.id}/metrics`)
      return r.status === 200 && r.body.history.length > 0 && r.body.memory.rss > 0 ? r : undefined
    }, "a metrics sample")
    expect(reply.body).toEqual({
      id: row!.id,
      name: "two-a",
      instance: 0,
      pid: row!.pid,
      cpu_usage: expect.any(Number),
      memory: {
        rss: expect.any(Number),
        vms: expect.any(Number),
        data: expect.any(Number),
        swap: expect.any(Number),
        shared: expect.any(Number)
      },
      uptime_ms: expect.any(Number),
      uptime: expect.stringMatching(UPTIME),
      restarts: expect.any(Number),
      errors: 0,
      history: expect.any(Array)
    })
    expect(reply.body.history.length).toBeLessThanOrEqual(60)
    for (const sample of reply.body.history)
      expect(sample).toEqual({
        timestamp: expect.stringMatching(ISO_UTC),
        cpu_usage: expect.any(Number),
        rss: expect.any(Number)
      })
  })
})

describe("deletion", () => {
  it("DELETE /api/processes/{id} stops and removes the row: 204, then 404", async () => {
    const created = await daemon.request("POST", "/api/processes", idleApp("doomed"))
    expect(created.status).toBe(201)
    const { id, pid } = created.body.processes[0]
    const reply = await daemon.request("DELETE", `/api/processes/${id}`)
    expect(reply.status).toBe(204)
    expect(reply.raw).toBe("")
    await eventually(() => !isAlive(pid), "the deleted app's process to exit")
    const after = await daemon.request("GET", `/api/processes/${id}`)
    expect(after.status).toBe(404)
    const again = await daemon.request("DELETE", `/api/processes/${id}`)
    expect(again.status).toBe(404)
    expect(again.body).toEqual(
      structured("PROCESS_NOT_FOUND", { process_id: String(id), suggestion: expect.any(String) })
    )
  })

  it("DELETE /api/processes?status=stopped,errored removes only those rows", async () => {
    expect((await daemon.request("POST", "/api/processes/two-a/stop")).status).toBe(200)
    const before = await list()
    const doomed = before.filter((row) => row.status === "stopped" || row.status === "errored").map((row) => row.id)
    expect(doomed.length).toBeGreaterThanOrEqual(2)
    const reply = await daemon.request("DELETE", "/api/processes?status=stopped,errored")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true, message: expect.any(String), deleted: doomed })
    const after = await list()
    expect(after.map((row) => row.id)).toEqual(before.filter((row) => !doomed.includes(row.id)).map((row) => row.id))
    expect(after.some((row) => row.name === "one")).toBe(true)
  })

  it("DELETE /api/processes answers 400 BAD_REQUEST without a status or with an unknown one", async () => {
    const none = await daemon.request("DELETE", "/api/processes")
    expect(none.status).toBe(400)
    expect(none.body).toEqual(badRequest("status"))
    const bogus = await daemon.request("DELETE", "/api/processes?status=gone")
    expect(bogus.status).toBe(400)
    expect(bogus.body).toEqual(badRequest("status"))
  })
})
