/**
 * Applying an edited ecosystem file through the CLI (docs/cli.md, "Applying a file"): `start`,
 * `restart`, `reload` and `apply` of a file in one request each, `--only`, `--update-env`, exit 9
 * for a partial failure — and the bad inputs that must change nothing.
 */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import type { Sandbox } from "../support/cli"
import { allOnline, eventually, fixtures, json, list, node, ok, type Row } from "./helpers"
import { sharedSandbox } from "./sharedSandbox"

/** The file's tests share one daemon, each with its own folder (sharedSandbox.ts). */
let sandbox: Sandbox
const shared = sharedSandbox()
beforeEach(() => {
  sandbox = shared()
})

const writeEnv = path.join(fixtures, "write-env.js")

interface Answer {
  readonly success: boolean
  readonly dry_run: boolean
  readonly apps: ReadonlyArray<{
    name: string
    action: string
    changed_keys: ReadonlyArray<string>
    ok: boolean
    error?: { code: string }
  }>
  readonly processes: ReadonlyArray<Row>
}

const actions = (answer: Answer) => answer.apps.map((app) => [app.name, app.action, app.changed_keys.join(",")])

/** The environment instance `i` of a write-env app wrote into `dir`, once it holds `key=value`. */
const written = (dir: string, i: number, key: string, value: string | undefined) =>
  eventually(() => {
    const env = JSON.parse(fs.readFileSync(path.join(dir, `${i}.json`), "utf8")) as Record<string, string>
    expect(env[key]).toBe(value)
    return env
  })

const ecosystem = (out: string, apps: { mode: string; instances?: number; extra?: boolean }) =>
  sandbox.write(
    "ecosystem.json",
    JSON.stringify({
      apps: [
        {
          name: "web",
          script: writeEnv,
          instances: apps.instances ?? 1,
          exec_mode: "fork",
          env: { ENV_OUT_DIR: out, MODE: apps.mode }
        },
        { name: "idle", script: node, args: ["-e", "setInterval(() => {}, 1000)"] },
        ...(apps.extra === true ? [{ name: "extra", script: node, args: ["-e", "setInterval(() => {}, 1000)"] }] : [])
      ]
    })
  )

describe("the edit-and-apply loop", () => {
  it("start reports an edited app changed and leaves it; restart and reload run the file's definition, scaling it", async () => {
    const out = path.join(sandbox.dir, "out")
    fs.mkdirSync(out)
    const file = ecosystem(out, { mode: "one" })
    ok(sandbox, ["start", file])
    const first = await allOnline(sandbox, 2)
    await written(out, 0, "MODE", "one")

    ecosystem(out, { mode: "two" })
    const start = sandbox.pmfx(["start", file])
    expect(start.code, start.stderr).toBe(0)
    expect(start.stdout).toMatch(/web\s+default\s+changed\s+env\s+ok/)
    expect(start.stdout).toMatch(/idle\s+default\s+unchanged/)
    expect(start.stdout).toContain("left running")
    expect(list(sandbox).map((row) => row.pid)).toEqual(first.map((row) => row.pid))

    const restart = json<Answer>(ok(sandbox, ["restart", file, "--json"]))
    expect(actions(restart)).toEqual([
      ["web", "restart", "env"],
      ["idle", "restart", ""]
    ])
    await written(out, 0, "MODE", "two")

    ecosystem(out, { mode: "three", instances: 2 })
    const reload = sandbox.pmfx(["reload", "./ecosystem.json", "--only", "web", "--json"])
    expect(reload.code, reload.stderr).toBe(0)
    expect(actions(json<Answer>(reload))).toEqual([["web", "reload", "instances,env"]])
    const rows = await allOnline(sandbox, 3)
    expect(rows.filter((row) => row.name === "web").map((row) => row.instance)).toEqual([0, 1])
    await written(out, 0, "MODE", "three")
    await written(out, 1, "MODE", "three")
  })

  it("PM2's deploy habit: startOrReload <file> --env production starts the missing apps and reloads the rest; startOrRestart restarts", async () => {
    const out = path.join(sandbox.dir, "out")
    fs.mkdirSync(out)
    const file = sandbox.write(
      "ecosystem.config.js",
      `module.exports = { apps: [
        { name: "web", script: ${JSON.stringify(writeEnv)}, env: { ENV_OUT_DIR: ${JSON.stringify(out)}, MODE: "dev" },
          env_production: { MODE: "prod" } },
        { name: "idle", script: ${JSON.stringify(node)}, args: ["-e", "setInterval(() => {}, 1000)"] }
      ] }\n`
    )
    // Nothing runs yet: both are created, with the env_production block.
    const first = json<Answer>(ok(sandbox, ["startOrReload", file, "--env", "production", "--json"]))
    expect(actions(first)).toEqual([
      ["web", "create", ""],
      ["idle", "create", ""]
    ])
    await allOnline(sandbox, 2)
    await written(out, 0, "MODE", "prod")
    // Both run: each is reloaded; one deleted meanwhile is started again.
    ok(sandbox, ["delete", "idle"])
    const again = json<Answer>(ok(sandbox, ["startOrReload", file, "--env", "production", "--json"]))
    expect(actions(again)).toEqual([
      ["web", "reload", ""],
      ["idle", "create", ""]
    ])
    const restarted = json<Answer>(ok(sandbox, ["startOrRestart", file, "--json"]))
    expect(actions(restarted).map(([name, action]) => [name, action])).toEqual([
      ["web", "restart"],
      ["idle", "restart"]
    ])
    await written(out, 0, "MODE", "dev")
    expect(ok(sandbox, ["startOrGracefulReload", file, "--only", "idle"]).stdout).toContain("reload")

    // PM2's `pm2 stop ecosystem.config.js` / `pm2 delete ecosystem.config.js`: the file's apps.
    const stopped = json<Array<Row>>(ok(sandbox, ["stop", "ecosystem.config.js", "--json"]))
    expect(stopped.map((row) => [row.name, row.status])).toEqual([
      ["web", "stopped"],
      ["idle", "stopped"]
    ])
    // A file that does not load acts on nothing: its own error, exit 3.
    const broken = sandbox.write("broken.config.js", "module.exports = { apps: [{ name: 'web' }] }\n")
    const refused = sandbox.pmfx(["delete", broken])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain("INVALID_CONFIG")
    expect(list(sandbox).map((row) => row.name)).toEqual(["web", "idle"])
    // An app of the file the daemon does not hold is reported, the others are deleted (exit 9).
    ok(sandbox, ["delete", "idle"])
    const deleted = sandbox.pmfx(["delete", file])
    expect(deleted.code, deleted.stderr).toBe(9)
    expect(deleted.stdout).toContain("deleted 1 process")
    expect(deleted.stderr).toContain('PROCESS_NOT_FOUND no process with id, name or namespace "idle"')
    expect(list(sandbox)).toEqual([])
  })

  it("apply --dry-run prints the plan and changes nothing; apply carries it out; --prune deletes what the file dropped", async () => {
    const out = path.join(sandbox.dir, "out")
    fs.mkdirSync(out)
    const file = ecosystem(out, { mode: "one", extra: true })
    ok(sandbox, ["apply", file])
    const before = await allOnline(sandbox, 3)

    ecosystem(out, { mode: "two" })
    const plan = sandbox.pmfx(["apply", file, "--prune", "--dry-run"])
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toContain("dry run: nothing changed")
    expect(plan.stdout).toMatch(/extra\s+default\s+delete/)
    expect(plan.stdout).toMatch(/web\s+default\s+update\s+env/)
    expect(plan.stdout).toMatch(/idle\s+default\s+unchanged/)
    expect(list(sandbox).map((row) => [row.name, row.pid])).toEqual(before.map((row) => [row.name, row.pid]))

    const applied = json<Answer>(ok(sandbox, ["apply", file, "--prune", "--json"]))
    expect(applied.success).toBe(true)
    expect(actions(applied)).toEqual([
      ["extra", "delete", ""],
      ["web", "update", "env"],
      ["idle", "unchanged", ""]
    ])
    const after = await allOnline(sandbox, 2)
    expect(after.find((row) => row.name === "idle")?.pid).toBe(before.find((row) => row.name === "idle")?.pid)
    await written(out, 0, "MODE", "two")
  })
})

describe("partial failure and creations that never spawned", () => {
  it("an app that cannot start is reported in its row and exit 9; the others are applied", async () => {
    const holder = net.createServer()
    await new Promise<void>((resolve) => holder.listen(0, "0.0.0.0", resolve))
    const port = (holder.address() as net.AddressInfo).port
    try {
      const file = sandbox.write(
        "eco.json",
        JSON.stringify({
          apps: [
            { name: "taken", script: node, args: ["-e", "setInterval(() => {}, 1000)"], port: String(port) },
            { name: "fine", script: node, args: ["-e", "setInterval(() => {}, 1000)"] }
          ]
        })
      )
      const result = sandbox.pmfx(["start", file])
      expect(result.code).toBe(9)
      expect(result.stdout).toMatch(/taken\s+default\s+create\s+-\s+PORT_IN_USE/)
      expect(result.stdout).toMatch(/fine\s+default\s+create\s+-\s+ok/)
      expect((await allOnline(sandbox, 1)).map((row) => row.name)).toEqual(["fine"])
    } finally {
      holder.close()
    }
  })

  it("pmfx start missing.js leaves no errored row: once the file exists, the same command works", async () => {
    const failed = sandbox.pmfx(["start", "missing.js"])
    expect(failed.code).toBe(6)
    expect(failed.stderr).toContain("PROCESS_START_FAILED missing could not start: no file missing.js")
    expect(failed.stderr).toContain("suggestion: check the file's name and the folder you ran pmfx from")
    expect(list(sandbox)).toEqual([])
    sandbox.write("missing.js", "setInterval(() => {}, 1000)\n")
    ok(sandbox, ["start", "missing.js"])
    expect((await allOnline(sandbox, 1)).map((row) => row.name)).toEqual(["missing"])
  })
})

describe("--update-env", () => {
  it("restart <app> --update-env gives it this shell's environment; without it the stored one stays", async () => {
    const out = path.join(sandbox.dir, "out")
    fs.mkdirSync(out)
    ok(sandbox, ["start", writeEnv, "--name", "envy", "--env", `ENV_OUT_DIR=${out}`], { SHELL_VAR: "first" })
    await written(out, 0, "SHELL_VAR", "first")
    ok(sandbox, ["restart", "envy"], { SHELL_VAR: "second" })
    await eventually(() => expect(list(sandbox)[0]!.restarts).toBe(1))
    await written(out, 0, "SHELL_VAR", "first")
    const updated = sandbox.pmfx(["restart", "envy", "--update-env"], { SHELL_VAR: "third" })
    expect(updated.code, updated.stderr).toBe(0)
    expect(updated.stdout).toContain("with this shell's environment")
    await written(out, 0, "SHELL_VAR", "third")
    ok(sandbox, ["reload", "envy", "--update-env"], { SHELL_VAR: "fourth" })
    await written(out, 0, "SHELL_VAR", "fourth")
  })
})

describe("bad input to a file command changes nothing", () => {
  it("unknown --only (exit 4, did you mean), --prune with --only (exit 2), an invalid file (exit 3), --port with a file (exit 2)", async () => {
    const out = path.join(sandbox.dir, "out")
    fs.mkdirSync(out)
    const file = ecosystem(out, { mode: "one" })
    ok(sandbox, ["start", file])
    const before = await allOnline(sandbox, 2)

    const unknown = sandbox.pmfx(["restart", file, "--only", "wbe"])
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toContain("PROCESS_NOT_FOUND")
    expect(unknown.stderr).toContain('did you mean "web"?')

    const prune = sandbox.pmfx(["apply", file, "--prune", "--only", "web", "--json"])
    expect(prune.code).toBe(2)
    expect(json<{ error: { code: string; details: { field: string } } }>(prune).error).toMatchObject({
      code: "BAD_REQUEST",
      details: { field: "--prune" }
    })

    const invalid = sandbox.write(
      "bad.json",
      JSON.stringify({
        apps: [
          { name: "web", script: writeEnv, instances: "lots" },
          { name: "idle", script: node, max_memory_restart: "12X" }
        ]
      })
    )
    const refused = sandbox.pmfx(["reload", invalid, "--json"])
    expect(refused.code).toBe(3)
    const wire = json<{ error: { code: string; details: { problems: Array<{ field: string }> } } }>(refused)
    expect(wire.error.code).toBe("INVALID_CONFIG")
    expect(wire.error.details.problems.map((problem) => problem.field)).toEqual([
      "apps[0].instances",
      "apps[1].max_memory_restart"
    ])

    const port = sandbox.pmfx(["restart", file, "--port", "4000"])
    expect(port.code).toBe(2)
    expect(port.stderr).toContain("--port")

    const only = sandbox.pmfx(["restart", "web", "--only", "web"])
    expect(only.code).toBe(2)

    const after = list(sandbox)
    expect(after.map((row) => [row.id, row.pid, row.restarts])).toEqual(
      before.map((row) => [row.id, row.pid, row.restarts])
    )
  })
})
