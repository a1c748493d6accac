/** `pmfx daemon restart` and `pmfx update`: a new daemon adopts the running apps (docs/decisions.md, "Apps outlive the daemon"). */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, eventually, fixtures, isAlive, json, list, ok } from "./helpers"
import { expectContiguous, tickNumbers } from "../support/tickLog"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("pmfx daemon restart", () => {
  it("replaces the daemon while the apps keep running: same pids, no log line lost, restart and kill work after", async () => {
    const counter = path.join(fixtures, "counter.js")
    // SPLIT: lines are written in halves, so the old daemon often holds half a line when it lets go.
    // Fork mode: -i alone would run a .js script in cluster mode, whose apps are started again.
    ok(sandbox, ["start", counter, "--name", "counter", "-i", "2", "--exec-mode", "fork"], { SPLIT: "1" })
    const before = await allOnline(sandbox, 2)
    const logs = [0, 1].map((i) => path.join(sandbox.home, "logs", `counter-${i}-out.log`))
    await eventually(() => expect(tickNumbers(logs[0]!).length).toBeGreaterThan(20))
    const oldDaemon = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8"))

    const restarted = ok(sandbox, ["daemon", "restart"])
    expect(restarted.stdout).toContain(`restarted the daemon (pid ${oldDaemon} → pid `)
    expect(restarted.stdout).toContain("2 processes running, adopted without a restart")
    expect(isAlive(oldDaemon)).toBe(false)
    const after = list(sandbox)
    expect(after.map((row) => [row.id, row.pid, row.restarts, row.status])).toEqual(
      before.map((row) => [row.id, row.pid, 0, "online"])
    )

    // PM2's name for the same thing.
    const updated = json<{ running: Array<{ pid: number }> }>(ok(sandbox, ["update", "--json"]))
    expect(updated.running.map((row) => row.pid)).toEqual(before.map((row) => row.pid))

    const counts = logs.map((file) => tickNumbers(file).length)
    await eventually(() => logs.forEach((file, i) => expect(tickNumbers(file).length).toBeGreaterThan(counts[i]! + 20)))
    for (const file of logs) expectContiguous(tickNumbers(file))

    // The adopted processes are the daemon's like any other.
    ok(sandbox, ["restart", "counter"])
    const again = await allOnline(sandbox, 2)
    for (const [i, row] of again.entries()) {
      expect(row.pid).not.toBe(before[i]!.pid)
      expect(row.restarts).toBe(1)
    }
    await eventually(() => before.forEach((row) => expect(isAlive(row.pid!)).toBe(false)))
    ok(sandbox, ["kill"])
    for (const row of again) expect(isAlive(row.pid!)).toBe(false)
  })

  it("with no daemon running, starts one", async () => {
    const result = ok(sandbox, ["daemon", "restart"])
    expect(result.stdout).toContain("restarted the daemon (none was running → pid ")
    expect(list(sandbox)).toEqual([])
  })
})
