/**
 * `POST /api/apply` through a real daemon: a file's resolved apps in one request, in each mode,
 * with per-app outcomes — and the bad bodies and failures that must leave everything else as it
 * was (docs/api.md, "POST /api/apply").
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { AppDefinition } from "../../src/domain/AppDefinition"
import { type Daemon, eventually, startDaemon } from "./daemon"
import { badRequest, holdPort, structured } from "./shapes"

const writeEnv = path.resolve(__dirname, "../fixtures/write-env.js")
const idleArgs = ["-e", "setInterval(() => {}, 1000)"]

let daemon: Daemon
let scratch: string
beforeAll(async () => {
  daemon = await startDaemon()
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-apply-"))
})
afterAll(async () => {
  await daemon?.stop()
  fs.rmSync(scratch, { recursive: true, force: true })
})

/** Resolves app settings as the CLI's loader does. */
const resolve = (apps: ReadonlyArray<Record<string, unknown>>): Promise<ReadonlyArray<AppDefinition>> =>
  Effect.runPromise(
    Effect.flatMap(ConfigLoader, (loader) => loader.fromDocument({ apps }, scratch, { environment: {} })).pipe(
      Effect.map((loaded) => loaded.apps),
      Effect.provide(ConfigLoader.Default)
    )
  )

const idle = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  script: process.execPath,
  args: idleArgs,
  ...extra
})

const apply = async (apps: ReadonlyArray<Record<string, unknown>>, body: Record<string, unknown>) => {
  const reply = await daemon.request("POST", "/api/apply", {
    apps: await resolve(apps),
    env: { PATH: process.env.PATH ?? "" },
    ...body
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as {
    success: boolean
    message: string
    dry_run: boolean
    apps: Array<{
      name: string
      action: string
      changed_keys: Array<string>
      ok: boolean
      error?: { code: string; details: Record<string, unknown> }
    }>
    processes: Array<{ id: number; name: string; pid: number | null; status: string; port: string | null }>
  }
}

type Row = {
  id: number
  name: string
  namespace: string
  status: string
  pid: number | null
  instance: number
  port: string | null
}
const rowsOf = async (name: string): Promise<Array<Row>> =>
  ((await daemon.request("GET", "/api/processes")).body as Array<Row>).filter((row) => row.name === name)
const allRows = async (): Promise<Array<Row>> => (await daemon.request("GET", "/api/processes")).body as Array<Row>

const online = (name: string, count: number) =>
  eventually(async () => {
    const rows = await rowsOf(name)
    return rows.length === count && rows.every((row) => row.status === "online" && row.pid !== null) ? rows : undefined
  }, `${name} online`)

const outcomes = (body: Awaited<ReturnType<typeof apply>>) =>
  Object.fromEntries(body.apps.map((app) => [app.name, [app.action, app.ok, app.changed_keys]]))

/** The environment a write-env instance wrote, once it is there with `key`. */
const envWritten = (dir: string, instance: number, key: string, value: string) =>
  eventually(() => {
    const file = path.join(dir, `${instance}.json`)
    const env = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, string>) : undefined
    return env?.[key] === value ? env : undefined
  }, `instance ${instance} with ${key}=${value}`)

describe("POST /api/apply, mode start", () => {
  it("creates new apps, reports running ones unchanged or changed (left running), and starts stopped ones", async () => {
    const file = [idle("s-a"), idle("s-b", { env: { MODE: "one" } })]
    const first = await apply(file, { mode: "start" })
    expect(first.success).toBe(true)
    expect(outcomes(first)).toEqual({ "s-a": ["create", true, []], "s-b": ["create", true, []] })
    const [a] = await online("s-a", 1)
    const [b] = await online("s-b", 1)

    const again = await apply(file, { mode: "start" })
    expect(outcomes(again)).toEqual({ "s-a": ["unchanged", true, []], "s-b": ["unchanged", true, []] })

    const edited = [idle("s-a"), idle("s-b", { env: { MODE: "two" } })]
    const changed = await apply(edited, { mode: "start" })
    expect(changed.success).toBe(true)
    expect(outcomes(changed)).toEqual({ "s-a": ["unchanged", true, []], "s-b": ["changed", true, ["env"]] })
    // Left running: same processes.
    expect((await rowsOf("s-a"))[0]!.pid).toBe(a!.pid)
    expect((await rowsOf("s-b"))[0]!.pid).toBe(b!.pid)

    expect((await daemon.request("POST", "/api/processes/s-b/stop")).status).toBe(200)
    const restarted = await apply(edited, { mode: "start" })
    expect(outcomes(restarted)).toEqual({ "s-a": ["unchanged", true, []], "s-b": ["start", true, ["env"]] })
    const [b2] = await online("s-b", 1)
    expect(b2!.id).toBe(b!.id)
    // It now holds the file's definition: the same file is unchanged.
    expect(outcomes(await apply(edited, { mode: "start" }))["s-b"]).toEqual(["unchanged", true, []])
  })
})

describe("POST /api/apply, modes restart and reload", () => {
  it("restart runs the file's definition (env, instances) and scales the app up and down", async () => {
    const out = fs.mkdtempSync(path.join(scratch, "r-"))
    const app = (mode: string, instances: number) => ({
      name: "r-env",
      script: writeEnv,
      instances,
      env: { ENV_OUT_DIR: out, MODE: mode }
    })
    await apply([app("one", 1)], { mode: "start" })
    const [before] = await online("r-env", 1)
    await envWritten(out, 0, "MODE", "one")

    const restarted = await apply([app("two", 2)], { mode: "restart" })
    expect(restarted.success, JSON.stringify(restarted)).toBe(true)
    expect(outcomes(restarted)).toEqual({ "r-env": ["restart", true, ["instances", "env"]] })
    const rows = await online("r-env", 2)
    expect(rows[0]!.id).toBe(before!.id)
    expect(rows[0]!.pid).not.toBe(before!.pid)
    await envWritten(out, 0, "MODE", "two")
    await envWritten(out, 1, "MODE", "two")

    const down = await apply([app("two", 1)], { mode: "restart" })
    expect(outcomes(down)).toEqual({ "r-env": ["restart", true, ["instances"]] })
    expect((await online("r-env", 1)).map((row) => row.id)).toEqual([before!.id])
  })

  it("reload replaces the instances one at a time with the new definition, ids kept", async () => {
    const out = fs.mkdtempSync(path.join(scratch, "l-"))
    const app = (mode: string) => ({
      name: "l-env",
      script: writeEnv,
      instances: 2,
      exec_mode: "fork",
      env: { ENV_OUT_DIR: out, MODE: mode }
    })
    await apply([app("one")], { mode: "start" })
    const before = await online("l-env", 2)
    const reloaded = await apply([app("two")], { mode: "reload" })
    expect(reloaded.success, JSON.stringify(reloaded)).toBe(true)
    expect(outcomes(reloaded)).toEqual({ "l-env": ["reload", true, ["env"]] })
    const after = await online("l-env", 2)
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id))
    for (const [i, row] of after.entries()) expect(row.pid).not.toBe(before[i]!.pid)
    await envWritten(out, 0, "MODE", "two")
    await envWritten(out, 1, "MODE", "two")
  })
})

describe("POST /api/apply, mode apply", () => {
  it("dry_run answers the plan and changes nothing; then only what changed is restarted, and prune deletes the rest of the namespace", async () => {
    const ns = { namespace: "ap" }
    await apply([idle("ap-keep", ns), idle("ap-edit", ns), idle("ap-gone", ns)], { mode: "start" })
    await apply([idle("ap-other", { namespace: "elsewhere" })], { mode: "start" })
    for (const name of ["ap-keep", "ap-edit", "ap-gone", "ap-other"]) await online(name, 1)
    const before = await allRows()

    const file = [idle("ap-keep", ns), idle("ap-edit", { ...ns, env: { EDITED: "1" } }), idle("ap-new", ns)]
    const plan = await apply(file, { mode: "apply", prune: true, dry_run: true })
    expect(plan.dry_run).toBe(true)
    expect(plan.processes).toEqual([])
    expect(plan.apps.map((app) => [app.name, app.action, app.changed_keys])).toEqual([
      ["ap-gone", "delete", []],
      ["ap-keep", "unchanged", []],
      ["ap-edit", "update", ["env"]],
      ["ap-new", "create", []]
    ])
    const unchanged = await allRows()
    expect(unchanged.map((row) => [row.id, row.pid])).toEqual(before.map((row) => [row.id, row.pid]))

    const applied = await apply(file, { mode: "apply", prune: true })
    expect(applied.success, JSON.stringify(applied)).toBe(true)
    expect(applied.apps.map((app) => [app.name, app.action, app.ok])).toEqual([
      ["ap-gone", "delete", true],
      ["ap-keep", "unchanged", true],
      ["ap-edit", "update", true],
      ["ap-new", "create", true]
    ])
    const pidOf = (rows: ReadonlyArray<Row>, name: string) => rows.find((row) => row.name === name)?.pid
    const after = await allRows()
    expect(after.map((row) => row.name)).not.toContain("ap-gone")
    expect(pidOf(after, "ap-keep")).toBe(pidOf(before, "ap-keep"))
    expect(pidOf(after, "ap-other")).toBe(pidOf(before, "ap-other"))
    await online("ap-edit", 1)
    expect(pidOf(await allRows(), "ap-edit")).not.toBe(pidOf(before, "ap-edit"))
    await online("ap-new", 1)
    // Applied again: nothing to do.
    expect((await apply(file, { mode: "apply", prune: true })).apps.map((app) => app.action)).toEqual([
      "unchanged",
      "unchanged",
      "unchanged"
    ])
  })

  it("a failure while acting is reported for that app; the other apps are applied, and a failing update leaves its app running", async () => {
    const held = await holdPort()
    try {
      await apply([idle("f-run")], { mode: "start" })
      const [running] = await online("f-run", 1)
      const result = await apply(
        [
          idle("f-run", { cwd: path.join(scratch, "no-such-folder") }),
          idle("f-port", { port: String(held.port) }),
          idle("f-fine")
        ],
        { mode: "apply" }
      )
      expect(result.success).toBe(false)
      expect(result.message).toContain("failed")
      const byName = Object.fromEntries(result.apps.map((app) => [app.name, app]))
      expect(byName["f-run"]).toMatchObject({
        action: "update",
        ok: false,
        changed_keys: ["cwd"],
        error: { code: "FILE_ERROR" }
      })
      expect(byName["f-port"]).toMatchObject({
        action: "create",
        ok: false,
        error: { code: "PORT_IN_USE", details: { port: held.port } }
      })
      expect(byName["f-fine"]).toMatchObject({ action: "create", ok: true })
      // f-run still runs its old definition, untouched.
      expect((await rowsOf("f-run"))[0]).toMatchObject({ pid: running!.pid, status: "online" })
      expect(await rowsOf("f-port")).toEqual([])
      await online("f-fine", 1)
    } finally {
      await held.close()
    }
  })
})

describe("POST /api/apply, bad bodies", () => {
  it("answers BAD_REQUEST or INVALID_CONFIG with the field, and changes nothing", async () => {
    await apply([idle("b-base")], { mode: "start" })
    await online("b-base", 1)
    const before = await allRows()
    const [definition] = await resolve([idle("b-new")])
    const send = (body: unknown) => daemon.request("POST", "/api/apply", body)

    expect((await send([1, 2])).body).toEqual(badRequest("body"))
    expect((await send({ apps: [definition], mode: "upsert" })).body).toEqual(badRequest("mode"))
    expect((await send({ apps: [{ ...definition, instances: "two" }], mode: "start" })).body).toEqual(
      badRequest("apps[0].instances")
    )
    expect((await send({ apps: [definition], mode: "start", extra: 1 })).body).toEqual(badRequest("extra"))
    // An unknown key deep inside an app is named too (the plain decode ignores it, src/api/strictDecode.ts).
    expect(
      (
        await send({
          apps: [{ ...definition, health_check: { ...definition!.health_check, every: 5 } }],
          mode: "start"
        })
      ).body
    ).toEqual(badRequest("apps[0].health_check.every"))
    expect((await send({ apps: [definition, { ...definition, nme: "x" }], mode: "start" })).body).toEqual(
      badRequest("apps[1].nme")
    )
    expect((await send({ apps: [definition], mode: "start", prune: true })).body).toEqual(badRequest("prune"))
    expect((await send({ apps: [definition], mode: "restart", update_env: true })).body).toEqual(badRequest("env"))

    const invalid = await send({
      apps: [definition, { ...definition, depends_on: ["nowhere"] }, { ...definition, name: "42" }],
      mode: "apply"
    })
    expect(invalid.status).toBe(422)
    expect(invalid.body).toMatchObject(structured("INVALID_CONFIG", { field: "apps[1].name", value: "b-new" }))
    expect(invalid.body.error.details.problems.map((p: { field: string }) => p.field)).toEqual([
      "apps[1].name",
      "apps[2].name",
      "apps[1].depends_on[0]"
    ])
    expect((await send({ apps: [], mode: "start" })).body).toMatchObject(
      structured("INVALID_CONFIG", { field: "apps" })
    )

    const after = await allRows()
    expect(after.map((row) => [row.id, row.name, row.pid])).toEqual(before.map((row) => [row.id, row.name, row.pid]))
    expect((await daemon.request("GET", "/health")).status).toBe(200)
  })
})

describe("creations that fail before their first spawn", () => {
  it("are not kept: POST /api/processes and /api/apply leave no errored row, and the same name works once fixed", async () => {
    const missing = { name: "nf-app", script: "no-such-command-pmfx-test" }
    const created = await daemon.request("POST", "/api/processes", missing)
    expect(created.status).toBe(422)
    expect(created.body.error.code).toBe("PROCESS_START_FAILED")
    expect(await rowsOf("nf-app")).toEqual([])
    const applied = await apply([missing], { mode: "start" })
    expect(applied.apps[0]).toMatchObject({ action: "create", ok: false, error: { code: "PROCESS_START_FAILED" } })
    expect(await rowsOf("nf-app")).toEqual([])
    expect((await daemon.request("POST", "/api/processes", idle("nf-app"))).status).toBe(201)
    await online("nf-app", 1)
  })
})

describe("restart and reload with update_env", () => {
  it("gives the app the caller's environment from now on; without it the stored one is kept", async () => {
    const out = fs.mkdtempSync(path.join(scratch, "u-"))
    const definitions = await resolve([{ name: "u-env", script: writeEnv, env: { ENV_OUT_DIR: out } }])
    expect((await daemon.request("POST", "/api/processes", { definitions, env: { FROM: "first" } })).status).toBe(201)
    await envWritten(out, 0, "FROM", "first")
    fs.rmSync(path.join(out, "0.json"))
    expect(
      (await daemon.request("POST", "/api/processes/u-env/restart", { update_env: true, env: { FROM: "second" } }))
        .status
    ).toBe(200)
    await envWritten(out, 0, "FROM", "second")
    fs.rmSync(path.join(out, "0.json"))
    expect((await daemon.request("POST", "/api/processes/u-env/reload", {})).status).toBe(200)
    await envWritten(out, 0, "FROM", "second")
    expect((await daemon.request("POST", "/api/processes/u-env/restart", { update_env: true })).body).toEqual(
      badRequest("env")
    )
  })
})
