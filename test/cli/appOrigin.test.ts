/**
 * Where an app came from and how it ends, through the built CLI: the ecosystem file recorded by
 * the daemon (show/describe, list --json, the API detail, kept across a daemon restart), watch,
 * autorestart and the last exit in `show`, the Port column from env PORT, and `--cron-restart`'s
 * error said once.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { letLoopTurn } from "../support/letLoopTurn"
import { eventually, idleCommand, json, list, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

interface Detail {
  readonly status: string
  readonly port: string | null
  readonly config_file: string | null
  readonly config: {
    readonly config_file: string | null
    readonly autorestart: boolean
    readonly watch: { enabled: boolean; paths: Array<string>; ignore: Array<string> }
  }
  readonly last_exit: { code: number | null; signal: string | null; at: string | null } | null
}

describe("the file an app came from", () => {
  it("is recorded, shown by show/describe and list --json, null for a command line, and kept across a daemon restart", async () => {
    sandbox.write("idle.js", "setInterval(() => {}, 1000)")
    const file = sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "web", script: "idle.js", env: { PORT: "4321" }, watch: ["idle.js"], ignore_watch: ["*.log"] },
          { name: "job", script: "bash", args: ["-c", "exit 3"], autorestart: false }
        ]
      })
    )
    ok(sandbox, ["start", "ecosystem.json"])
    ok(sandbox, ["start", idleCommand, "--name", "cli"])
    await eventually(() => expect(list(sandbox).map((row) => row.status)).toEqual(["online", "errored", "online"]))

    const rows = list(sandbox) as unknown as Array<{ name: string; port: string | null; config_file: string | null }>
    expect(rows.map((row) => [row.name, row.config_file])).toEqual([
      ["web", file],
      ["job", file],
      ["cli", null]
    ])
    // No `port` setting: the Port column shows the PORT the app reads from its env.
    expect(rows.find((row) => row.name === "web")!.port).toBe("4321")
    expect(ok(sandbox, ["ls", "web"]).stdout).toMatch(/web +default +\S+ +\d+ +4321/)

    const web = json<Detail>(ok(sandbox, ["show", "web", "--json"]))
    expect(web.config).toMatchObject({
      config_file: file,
      autorestart: true,
      watch: { enabled: true, ignore: ["*.log"] }
    })
    expect(web.config.watch.paths).toEqual([`${sandbox.dir}/idle.js`])
    await letLoopTurn()
    const shown = ok(sandbox, ["describe", "web"]).stdout
    expect(shown).toMatch(new RegExp(`config file +${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`))
    expect(shown).toMatch(/autorestart +yes/)
    expect(shown).toMatch(/watch +\/.*idle\.js/)
    expect(shown).toMatch(/ignore_watch +\*\.log/)
    expect(ok(sandbox, ["show", "cli"]).stdout).toMatch(/config file +none \(started from the command line\)/)

    // The last exit: code and when; autorestart off leaves the app errored (docs/decisions.md).
    const job = await eventually(() => {
      const detail = json<Detail>(ok(sandbox, ["show", "job", "--json"]))
      expect(detail.last_exit).not.toBe(null)
      return detail
    })
    expect(job.status).toBe("errored")
    expect(job.config.autorestart).toBe(false)
    expect(job.last_exit).toMatchObject({ code: 3, signal: null })
    expect(Date.now() - Date.parse(job.last_exit!.at!)).toBeLessThan(10 * 60_000)
    await letLoopTurn()
    expect(ok(sandbox, ["show", "job"]).stdout).toMatch(/last exit +code 3, \d+s ago/)
    expect(ok(sandbox, ["show", "job"]).stdout).toMatch(/autorestart +no/)

    // Persisted in state.json: a new daemon still knows the file.
    await letLoopTurn()
    ok(sandbox, ["daemon", "restart"])
    expect(json<Detail>(ok(sandbox, ["show", "web", "--json"])).config.config_file).toBe(file)
  })

  it("--cron-restart's error says the schedule's problem once, with the form in the suggestion (exit 3)", () => {
    const result = sandbox.pmfx(["start", idleCommand, "--name", "c", "--cron-restart", "61 * * * *"])
    expect(result.code).toBe(3)
    expect(result.stderr.split("5 fields").length - 1).toBe(1)
    expect(result.stderr).toContain('"61 * * * *" is not a cron schedule (expected a value between 0 and 59)')
    expect(list(sandbox)).toEqual([])
  })
})
