/**
 * Several selectors per command, as PM2 users type them (docs/cli.md, "Several selectors"):
 * `pmfx stop api worker`, restart, reload, reset, flush, delete; an unknown one among them; over
 * `--url` too. Also `pmfx list <filter>`, `pmfx logs` with no argument, and `restart --watch`.
 */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import { onTestFinished } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, eventually, idleCommand, json, list, ok, type Row } from "./helpers"
import { sharedSandbox } from "./sharedSandbox"
import { freePort } from "./tcp"

/** The file's tests share one daemon, each with its own folder (sharedSandbox.ts). */
let sandbox: Sandbox
const shared = sharedSandbox()
beforeEach(() => {
  sandbox = shared()
})

const KEY = "full-key-0b5e7d1c93"

/** api, worker (namespace jobs) and cron (namespace jobs), all online; their ids by name. */
const threeApps = async () => {
  ok(sandbox, ["start", idleCommand, "--name", "api"])
  ok(sandbox, ["start", idleCommand, "--name", "worker", "--namespace", "jobs"])
  ok(sandbox, ["start", idleCommand, "--name", "cron", "--namespace", "jobs"])
  const rows = await allOnline(sandbox, 3)
  const idOf = (name: string) => rows.find((row) => row.name === name)!.id
  return { api: idOf("api"), worker: idOf("worker"), cron: idOf("cron") }
}

const statusOf = (name: string) => list(sandbox).find((row) => row.name === name)?.status

interface SeveralFailed {
  readonly success: false
  readonly error: {
    readonly code: string
    readonly message: string
    readonly details: {
      readonly process_id: string
      readonly failed: ReadonlyArray<{ selector: string; code: string; message: string; suggestion: string | null }>
      readonly suggestion: string
    }
  }
  readonly done: unknown
}

describe("several selectors", () => {
  it("stop, restart, reset and reload act on each; the rows come back once each", async () => {
    const ids = await threeApps()
    const stopped = sandbox.pmfx(["stop", "api", "worker"])
    expect(stopped.code, stopped.stderr).toBe(0)
    expect(stopped.stdout).toContain("stopped 2 processes")
    expect([statusOf("api"), statusOf("worker"), statusOf("cron")]).toEqual(["stopped", "stopped", "online"])

    // An id, a name and the namespace holding that name: each row once in the answer.
    const restarted = json<Array<Row>>(ok(sandbox, ["restart", String(ids.api), "worker", "jobs", "--json"]))
    expect(restarted.map((row) => row.name).sort()).toEqual(["api", "cron", "worker"])
    expect(restarted.every((row) => row.status === "online" || row.status === "starting")).toBe(true)

    expect(json<Array<Row>>(ok(sandbox, ["reset", "api", "cron", "--json"])).map((row) => row.name)).toEqual([
      "api",
      "cron"
    ])
    const reloaded = json<{ processes: Array<Row>; restarted_instead: Array<string> }>(
      ok(sandbox, ["reload", "api", "worker", "--json"])
    )
    expect(reloaded.processes.map((row) => row.name)).toEqual(["api", "worker"])
    expect(reloaded.restarted_instead).toEqual(["api", "worker"])
  })

  it("an unknown name among them: the others are acted on, the unknown ones named, exit 9", async () => {
    await threeApps()
    const result = sandbox.pmfx(["stop", "api", "nope", "worker", "zzz"])
    expect(result.code).toBe(9)
    expect(result.stdout).toContain("stopped 2 processes")
    expect(result.stderr).toContain('PROCESS_NOT_FOUND no process with id, name or namespace "nope"')
    expect(result.stderr).toContain(
      '2 of 4 selectors failed: no process with id, name or namespace "nope", "zzz"; the others were stopped'
    )
    expect(result.stderr).toContain("suggestion: check the names with `pmfx list`")
    expect([statusOf("api"), statusOf("worker"), statusOf("cron")]).toEqual(["stopped", "stopped", "online"])

    const asJson = sandbox.pmfx(["restart", "api", "nope", "--json"])
    expect(asJson.code).toBe(9)
    const body = JSON.parse(asJson.stdout) as SeveralFailed
    expect(body.success).toBe(false)
    expect(body.error).toMatchObject({
      code: "PROCESS_NOT_FOUND",
      message: '1 of 2 selectors failed: no process with id, name or namespace "nope"; the others were restarted',
      details: {
        process_id: "nope",
        failed: [
          { selector: "nope", code: "PROCESS_NOT_FOUND", message: 'no process with id, name or namespace "nope"' }
        ]
      }
    })
    expect((body.done as Array<Row>).map((row) => row.name)).toEqual(["api"])
    // The daemon still answers, and nothing else changed.
    expect(statusOf("cron")).toBe("online")
  })

  it("every selector unknown: the failure's own exit code (4), nothing done", async () => {
    await threeApps()
    const result = sandbox.pmfx(["restart", "nope", "zzz", "--json"])
    expect(result.code).toBe(4)
    const body = JSON.parse(result.stdout) as SeveralFailed
    expect(body.error.message).toBe(
      '2 of 2 selectors failed: no process with id, name or namespace "nope", "zzz"; nothing was done'
    )
    expect(body.error.details.failed.map((f) => f.selector)).toEqual(["nope", "zzz"])
    expect(body.done).toEqual([])
    // One selector keeps the daemon's answer, exactly as before.
    const one = sandbox.pmfx(["stop", "nope", "--json"])
    expect(one.code).toBe(4)
    expect(JSON.parse(one.stdout)).toMatchObject({
      success: false,
      error: { code: "PROCESS_NOT_FOUND", details: { process_id: "nope" } }
    })
    expect(list(sandbox).every((row) => row.status === "online")).toBe(true)
  })

  it("delete and flush take several; an option typo is refused, not read as a selector", async () => {
    const ids = await threeApps()
    const flushed = json<{ files: Array<string> }>(ok(sandbox, ["flush", "api", "cron", "--json"]))
    expect(flushed.files.length).toBeGreaterThanOrEqual(4)
    const typo = sandbox.pmfx(["stop", "api", "--jsno"])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain("--jsno: unknown option for pmfx stop; did you mean '--json'?")
    expect(statusOf("api")).toBe("online")

    const deleted = json<{ deleted: Array<number> }>(ok(sandbox, ["delete", "api", "worker", "--json"]))
    expect(deleted.deleted.sort()).toEqual([ids.api, ids.worker].sort())
    expect(list(sandbox).map((row) => row.name)).toEqual(["cron"])
  })

  it("start takes several apps the daemon holds; a command among them is refused (exit 2)", async () => {
    await threeApps()
    ok(sandbox, ["stop", "all"])
    const started = sandbox.pmfx(["start", "api", "nope", "jobs"])
    expect(started.code).toBe(9)
    expect(started.stdout).toContain("started 3 processes")
    expect(started.stderr).toContain(
      '1 of 3 selectors failed: no process with id, name or namespace "nope"; the others were started'
    )
    expect(list(sandbox).map((row) => row.status)).toEqual(["online", "online", "online"])
    const command = sandbox.pmfx(["start", "api", "node x.js", "--json"])
    expect(command.code).toBe(2)
    expect(JSON.parse(command.stdout).error).toMatchObject({ code: "BAD_REQUEST", details: { field: "command" } })
    const withOption = sandbox.pmfx(["start", "api", "cron", "--name", "x", "--json"])
    expect(withOption.code).toBe(2)
    expect(list(sandbox)).toHaveLength(3)
  })

  it("a file with other names is refused (exit 2); --port with several too", async () => {
    await threeApps()
    sandbox.write("eco.json", JSON.stringify({ apps: [{ name: "x", script: "x.js" }] }))
    const mixed = sandbox.pmfx(["restart", "eco.json", "api", "--json"])
    expect(mixed.code).toBe(2)
    expect(JSON.parse(mixed.stdout).error).toMatchObject({ code: "BAD_REQUEST", details: { field: "target" } })
    const port = sandbox.pmfx(["restart", "api", "cron", "--port", "4100", "--json"])
    expect(port.code).toBe(2)
    expect(JSON.parse(port.stdout).error).toMatchObject({ code: "BAD_REQUEST", details: { field: "--port" } })
    expect(list(sandbox).every((row) => row.status === "online")).toBe(true)
  })

  it("over --url: the same answers from a remote daemon", async () => {
    // Its own daemon: it opens the daemon's TCP listener.
    const own = makeSandbox()
    onTestFinished(() => own.cleanup())
    sandbox = own
    await threeApps()
    const port = await freePort()
    ok(sandbox, ["web", "--port", String(port), "--api-key", KEY])
    const remote = (args: ReadonlyArray<string>) =>
      sandbox.pmfx(["--url", `http://127.0.0.1:${port}`, "--api-key", KEY, ...args])
    const result = remote(["stop", "api", "nope", "cron"])
    expect(result.code).toBe(9)
    expect(result.stdout).toContain("stopped 2 processes")
    expect(result.stderr).toContain('1 of 3 selectors failed: no process with id, name or namespace "nope"')
    expect([statusOf("api"), statusOf("worker"), statusOf("cron")]).toEqual(["stopped", "online", "stopped"])
    ok(sandbox, ["web", "--stop"])
  })
})

describe("list with a filter, logs with no argument, restart --watch", () => {
  it("list/ls take ids, names or namespaces; an unknown one is exit 4 with the closest name", async () => {
    const ids = await threeApps()
    expect(json<Array<Row>>(ok(sandbox, ["ls", "jobs", "--json"])).map((row) => row.name)).toEqual(["worker", "cron"])
    expect(json<Array<Row>>(ok(sandbox, ["list", "api", String(ids.cron), "--json"])).map((row) => row.name)).toEqual([
      "api",
      "cron"
    ])
    expect(ok(sandbox, ["ps", "jobs"]).stdout).not.toContain("api")
    const unknown = sandbox.pmfx(["ls", "jbos", "--json"])
    expect(unknown.code).toBe(4)
    expect(JSON.parse(unknown.stdout)).toEqual({
      success: false,
      error: {
        code: "PROCESS_NOT_FOUND",
        message: 'no process with id, name or namespace "jbos"',
        details: { process_id: "jbos", suggestion: 'did you mean "jobs"?' }
      }
    })
  })

  it("logs with no argument prints every app's lines and says how to follow", async () => {
    ok(sandbox, ["start", `${process.execPath} -e "console.log('from-a'); setInterval(() => {}, 1000)"`, "--name", "a"])
    ok(sandbox, ["start", `${process.execPath} -e "console.log('from-b'); setInterval(() => {}, 1000)"`, "--name", "b"])
    await allOnline(sandbox, 2)
    const logs = await eventually(() => {
      const result = ok(sandbox, ["logs"])
      expect(result.stdout).toContain("from-a")
      expect(result.stdout).toContain("from-b")
      return result
    })
    expect(logs.stderr).toContain("`pmfx logs -f` to keep following as `pm2 logs` does")
  })

  it("restart --watch is refused with the way to change watch (exit 2)", async () => {
    await threeApps()
    const result = sandbox.pmfx(["restart", "api", "--watch", "--json"])
    expect(result.code).toBe(2)
    const error = JSON.parse(result.stdout).error
    expect(error).toMatchObject({ code: "BAD_REQUEST", details: { field: "--watch" } })
    expect(error.details.suggestion).toBe(
      "api was started from the command line: `pmfx delete api` and start it again with `pmfx start <script> --name api --watch`"
    )
    // An app of a file: the file to edit, by its path.
    sandbox.write("idle.js", "setInterval(() => {}, 1000)")
    const eco = sandbox.write("apps.json", JSON.stringify({ apps: [{ name: "filed", script: "idle.js" }] }))
    ok(sandbox, ["start", "apps.json"])
    const filed = sandbox.pmfx(["restart", "filed", "--watch"])
    expect(filed.code).toBe(2)
    expect(filed.stderr).toContain(`set "watch" (and "ignore_watch") in ${eco}, then run \`pmfx apply ${eco}\``)
    sandbox.write("eco.json", JSON.stringify({ apps: [{ name: "x", script: "x.js" }] }))
    const onFile = sandbox.pmfx(["reload", "eco.json", "--watch"])
    expect(onFile.code).toBe(2)
    expect(onFile.stderr).toContain('set "watch" (and "ignore_watch") in eco.json, then run `pmfx apply eco.json`')
    expect(statusOf("api")).toBe("online")
  })
})
