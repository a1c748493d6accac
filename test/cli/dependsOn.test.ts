/**
 * `depends_on` conditions through the built binary and a real daemon (docs/configuration.md,
 * depends_on): `show` says what a starting app waits for, a condition that can never be met fails
 * the start with PROCESS_START_FAILED (exit 6) naming the dependency, and a bad condition is
 * INVALID_CONFIG (exit 3) with its field — the apps already running are left alone each time.
 */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Sandbox } from "../support/cli"
import { eventually, idleCommand, json, list, node, ok } from "./helpers"
import { sharedSandbox } from "./sharedSandbox"

/** The file's tests share one daemon, each with its own folder (sharedSandbox.ts). */
let sandbox: Sandbox
const shared = sharedSandbox()
beforeEach(() => {
  sandbox = shared()
})

/** Rows by app name: a file is applied in dependency order, so ids need not follow the file. */
const byName = <R extends { readonly name: string }>(rows: ReadonlyArray<R>): Array<R> =>
  [...rows].sort((a, b) => a.name.localeCompare(b.name))

describe("depends_on conditions from the CLI", () => {
  it("show says what a starting app waits for; it starts once the ready line appears", async () => {
    const marker = path.join(sandbox.dir, "go")
    const db = `const fs = require("fs"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(marker)})) { clearInterval(t); console.log("db ready"); setInterval(() => {}, 1000) } }, 50)`
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          { name: "db", script: node, args: ["-e", db], ready_log_line: "^db ready$" },
          { name: "api", script: "sleep", args: ["300"], depends_on: [{ name: "db", condition: "log_ready" }] }
        ]
      })
    )
    const starting = sandbox.pmfxAsync(["start", file])
    await eventually(
      () =>
        expect(ok(sandbox, ["show", "api"]).stdout).toMatch(
          /status\s+starting \(waiting for db to print its ready line\)/
        ),
      30_000
    )
    expect(ok(sandbox, ["show", "api"]).stdout).toMatch(/depends_on\s+db \(log_ready\)/)
    fs.writeFileSync(marker, "")
    const started = await starting
    expect(started.code).toBe(0)
    const api = json<{ status: string; waiting_for: string | null }>(ok(sandbox, ["show", "api", "--json"]))
    expect([api.status, api.waiting_for]).toEqual(["online", null])
  })

  it("restart of a namespace restarts the dependency first; its dependent waits for the ready line again", async () => {
    const marker = path.join(sandbox.dir, "go")
    fs.writeFileSync(marker, "")
    const db = `const fs = require("fs"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(marker)})) { clearInterval(t); console.log("db ready"); setInterval(() => {}, 1000) } }, 50)`
    // The dependent comes first in the file; what this proves is that it waits for db's ready line again.
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          {
            name: "api",
            namespace: "stack",
            script: "sleep",
            args: ["300"],
            depends_on: [{ name: "db", condition: "log_ready" }]
          },
          { name: "db", namespace: "stack", script: node, args: ["-e", db], ready_log_line: "^db ready$" }
        ]
      })
    )
    ok(sandbox, ["start", file])
    const before = await eventually(() => {
      const rows = list(sandbox)
      expect(byName(rows).map((r) => [r.name, r.status])).toEqual([
        ["api", "online"],
        ["db", "online"]
      ])
      return byName(rows)
    }, 30_000)

    /** The lines of daemon.log (shared by this file's tests) that say api waits for db. */
    const loggedWaits = () =>
      fs
        .readFileSync(path.join(sandbox.home, "daemon.log"), "utf8")
        .split("\n")
        .filter((line) => line.includes("api waits for db to print its ready line")).length
    const waitsBefore = loggedWaits()
    expect(waitsBefore).toBeGreaterThanOrEqual(1)
    fs.rmSync(marker)
    const restarting = sandbox.pmfxAsync(["restart", "stack"])
    // db is back (a new process, not yet ready); api is stopped and waits for db's ready line.
    await eventually(() => {
      const rows = byName(list(sandbox))
      expect(rows[1]).toMatchObject({ name: "db", status: "online", restarts: 1 })
      expect(rows[1]!.pid).not.toBe(before[1]!.pid)
      expect(rows[0]).toMatchObject({ name: "api", status: "starting", pid: null })
    }, 30_000)
    expect(ok(sandbox, ["show", "api"]).stdout).toMatch(/status\s+starting \(waiting for db to print its ready line\)/)
    fs.writeFileSync(marker, "")
    const restarted = await restarting
    expect(restarted.code, restarted.stderr).toBe(0)
    const after = byName(list(sandbox))
    expect(after.map((r) => [r.name, r.status, r.restarts])).toEqual([
      ["api", "online", 1],
      ["db", "online", 1]
    ])
    expect(after[0]!.pid).not.toBe(before[0]!.pid)
    // daemon.log records the wait again at the restart, as at the start.
    expect(loggedWaits()).toBe(waitsBefore + 1)
  })

  it("a condition that can never be met fails that app (exit 9, its outcome names the dependency); a bad condition is exit 3 with its field", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "bystander"])
    const bystander = list(sandbox)[0]!
    const failing = sandbox.write(
      "migrate.json",
      JSON.stringify({
        apps: [
          { name: "migrate", script: node, args: ["-e", "process.exit(2)"], autorestart: false },
          {
            name: "api",
            script: "sleep",
            args: ["300"],
            depends_on: [{ name: "migrate", condition: "completed_successfully" }]
          }
        ]
      })
    )
    // The file is applied in one request: migrate ran, api failed, so the exit code is 9 (partial)
    // and api's outcome carries the error.
    const result = sandbox.pmfx(["start", failing, "--json"])
    expect(result.code).toBe(9)
    const answer = JSON.parse(result.stdout) as {
      apps: ReadonlyArray<{ name: string; ok: boolean; error?: { code: string; details: Record<string, unknown> } }>
    }
    const body = { error: answer.apps.find((app) => app.name === "api")!.error! }
    expect(body.error.code).toBe("PROCESS_START_FAILED")
    expect(body.error.details).toMatchObject({
      process_id: "api",
      dependency: "migrate",
      condition: "completed_successfully"
    })
    expect(body.error.details.reason).toBe(
      "it waits for migrate to complete successfully (exit 0), but migrate is errored (exited with code 2)"
    )

    const typo = sandbox.write(
      "typo.json",
      JSON.stringify({
        apps: [
          { name: "db2", script: "sleep", args: ["300"] },
          { name: "api2", script: "sleep", args: ["300"], depends_on: [{ name: "db2", condition: "helthy" }] }
        ]
      })
    )
    const invalid = sandbox.pmfx(["start", typo])
    expect(invalid.code).toBe(3)
    expect(invalid.stderr + invalid.stdout).toContain('apps[1].depends_on[0].condition: unknown condition "helthy"')
    expect(invalid.stderr + invalid.stdout).toContain('did you mean "healthy"?')

    // The app that was running still runs, with the same pid; the typo file added nothing.
    const after = list(sandbox)
    expect(after.find((r) => r.name === "bystander")).toMatchObject({ status: "online", pid: bystander.pid })
    expect(after.some((r) => r.name === "db2" || r.name === "api2")).toBe(false)
  })
})
