/**
 * Daemon SIGKILL in a loop (docs/decisions.md, "Apps outlive the daemon"): 40 daemons killed at
 * random moments — during their restore and adoption as well as after — over apps that write
 * without pause, sit still, or crash all the time. Then: no app runs twice, nothing runs untracked,
 * every app is alive and was adopted (same pid), and the writers' lost/repeated/cut lines are counted.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { makeTestDaemon, type TestDaemon } from "../support/daemon"
import { daemonKillLoop } from "../support/daemonKillLoop"

let daemon: TestDaemon
beforeEach(() => {
  daemon = makeTestDaemon()
})
afterEach(async () => {
  await daemon.cleanup()
})

describe("daemon SIGKILL loop", () => {
  it("40 kills: 0 duplicates, 0 untracked, all alive and adopted", async () => {
    const figures = await daemonKillLoop(daemon, 40, { maxDelayMs: 2_000 })
    console.log(`daemon SIGKILL loop: ${JSON.stringify(figures)}`)
    expect(figures).toMatchObject({ duplicates: 0, untracked: 0, notOnline: 0, notAdopted: 0, linesCut: 0 })
  })
})
