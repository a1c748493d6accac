import { describe, expect, it } from "@effect/vitest"
import {
  backoffDelay,
  decideAfterExit,
  isUnstableRun,
  MAX_BACKOFF_MS,
  unstableAfterRun
} from "../../src/supervisor/restartPolicy"

const app = {
  autorestart: true,
  max_restarts: 3,
  min_uptime: 1_000,
  restart_delay: 50,
  exp_backoff_restart_delay: 100,
  stop_exit_codes: []
}
const crash = (uptimeMs: number) => ({ code: 1, signal: null, uptimeMs })

describe("restart policy: min_uptime counts unstable restarts (PM2's meaning)", () => {
  it("an exit just before min_uptime is unstable, at or after it is stable", () => {
    expect(isUnstableRun(1_000, 999)).toBe(true)
    expect(isUnstableRun(1_000, 1_000)).toBe(false)
    expect(isUnstableRun(1_000, 1_001)).toBe(false)
    expect(isUnstableRun(0, 0)).toBe(false)
  })

  it("an unstable exit adds one and a backoff; a stable exit resets the count and has none", () => {
    expect(decideAfterExit(app, crash(999), 0)).toEqual({ _tag: "Restart", delayMs: 50 + 100, unstableRestarts: 1 })
    expect(decideAfterExit(app, crash(999), 2)).toEqual({ _tag: "Restart", delayMs: 50 + 400, unstableRestarts: 3 })
    expect(decideAfterExit(app, crash(1_000), 2)).toEqual({ _tag: "Restart", delayMs: 50, unstableRestarts: 0 })
    expect(decideAfterExit(app, crash(60_000), 3)).toEqual({ _tag: "Restart", delayMs: 50, unstableRestarts: 0 })
    expect(unstableAfterRun(1_000, 999, 5)).toBe(6)
    expect(unstableAfterRun(1_000, 1_000, 5)).toBe(0)
  })

  it("more than max_restarts unstable exits in a row settle errored, with the reason", () => {
    const decision = decideAfterExit(app, crash(10), 3)
    expect(decision).toMatchObject({ _tag: "Settle", status: "errored", unstableRestarts: 4 })
    expect(decision._tag === "Settle" && decision.reason).toBe(
      "exited within min_uptime (1s) of starting 4 times in a row (max_restarts 3)"
    )
    // The same exit after min_uptime is restarted: the run was stable.
    expect(decideAfterExit(app, crash(1_000), 3)).toMatchObject({ _tag: "Restart", unstableRestarts: 0 })
  })

  it("autorestart off settles by the exit code, whatever the uptime", () => {
    const off = { ...app, autorestart: false }
    expect(decideAfterExit(off, { code: 0, signal: null, uptimeMs: 5 }, 0)).toMatchObject({
      _tag: "Settle",
      status: "stopped"
    })
    expect(decideAfterExit(off, { code: null, signal: "SIGKILL", uptimeMs: 5_000 }, 0)).toMatchObject({
      _tag: "Settle",
      status: "errored"
    })
  })

  it("the backoff doubles from exp_backoff_restart_delay up to 15 s", () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(100, n))).toEqual([0, 100, 200, 400])
    expect(backoffDelay(100, 30)).toBe(MAX_BACKOFF_MS)
  })

  it("stop_exit_codes: an exit with a listed code settles stopped, whatever the uptime; other codes and signals restart", () => {
    const listing = { ...app, stop_exit_codes: [0, 3] }
    expect(decideAfterExit(listing, { code: 3, signal: null, uptimeMs: 10 }, 3)).toMatchObject({
      _tag: "Settle",
      status: "stopped",
      reason: "exit code 3 is in stop_exit_codes"
    })
    expect(decideAfterExit(listing, { code: 0, signal: null, uptimeMs: 60_000 }, 0)).toMatchObject({
      _tag: "Settle",
      status: "stopped"
    })
    expect(decideAfterExit(listing, { code: 1, signal: null, uptimeMs: 60_000 }, 0)).toMatchObject({ _tag: "Restart" })
    expect(decideAfterExit(listing, { code: null, signal: "SIGKILL", uptimeMs: 60_000 }, 0)).toMatchObject({
      _tag: "Restart"
    })
  })
})
