/**
 * The fast part of the daemon SIGKILL fault suite (the long one: test/faults/daemonKill.test.ts),
 * and the spawn-time save of defect 5: a pid is in state.json as soon as its process exists.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { isAlive, makeTestDaemon, processesWith, type TestDaemon, waitFor } from "../support/daemon"
import { daemonKillLoop } from "../support/daemonKillLoop"

let daemon: TestDaemon
beforeEach(() => {
  daemon = makeTestDaemon()
})
afterEach(async () => {
  await daemon.cleanup()
})

interface SavedRow {
  readonly id: number
  readonly pid: number | null
  readonly pid_start_time: number | null
  readonly pipes?: string | null
}

const savedRows = (home: string): Array<SavedRow> => {
  const state = JSON.parse(fs.readFileSync(path.join(home, "state.json"), "utf8")) as {
    engine: { apps: Array<{ rows: Array<SavedRow> }> }
  }
  return state.engine.apps.flatMap((app) => app.rows)
}

describe("daemon SIGKILL", () => {
  it("a new process's pid is saved before it is online; a daemon killed then leaves it to the next, which adopts it", async () => {
    const first = await daemon.start()
    const marker = `pmfx-spawnsave-${Math.random().toString(36).slice(2)}`
    // A health check that fails (counted once a minute) keeps the row `starting`: the pid must be saved anyway.
    const reply = await daemon.call("POST", "/api/processes", {
      name: "slow",
      script: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)", marker],
      env: { HEALTH_EXIT_CODE: "1" },
      health_check: {
        check_type: "script",
        script: path.resolve(__dirname, "../fixtures/health-exit.sh"),
        interval: "60s"
      }
    })
    expect(reply.status).toBe(201)
    const [row] = (await daemon.call("GET", "/api/processes")).body as Array<{ pid: number; status: string }>
    expect(row!.status).toBe("starting")
    const saved = savedRows(daemon.home)
    expect(saved.map((r) => r.pid)).toEqual([row!.pid])
    expect(saved[0]!.pid_start_time).not.toBeNull()

    process.kill(first.pid!, "SIGKILL")
    await waitFor(() => !isAlive(first.pid!), "the daemon to die")
    await daemon.start()
    const [after] = (await daemon.call("GET", "/api/processes")).body as Array<{ pid: number }>
    expect(after!.pid).toBe(row!.pid)
    expect(processesWith(marker)).toEqual([row!.pid])
  })

  it("killed in a loop, during restore too: no app twice, nothing untracked, every app alive and adopted", async () => {
    const figures = await daemonKillLoop(daemon, 4, { maxDelayMs: 1_200 })
    console.log(`daemon SIGKILL loop (fast): ${JSON.stringify(figures)}`)
    expect(figures).toMatchObject({ duplicates: 0, untracked: 0, notOnline: 0, notAdopted: 0, linesCut: 0 })
  })
})
