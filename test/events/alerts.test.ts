import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Alerts } from "../../src/events/Alerts"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { alertsOf, closedPort, notifications } from "./helpers"

describe("alerts", () => {
  it.live("an abnormal exit raises process_crash with the exit details", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "100" }, autorestart: false }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "process_crash").length === 1),
          "a process_crash alert"
        )
        const [alert] = alertsOf(events, "process_crash")
        expect(alert).toMatchObject({ id: row!.id, name: "crashy", instance: 0, data: { exit_code: 1, signal: null } })
        expect(alert!.message).toContain("crashy")
        expect(Number.isNaN(Date.parse(alert!.timestamp))).toBe(false)
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("a stop asked for is not a crash", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([{ name: "calm", script: "sleep", args: ["300"], min_uptime: "100ms" }])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* pm.stop("calm")
        yield* eventually(
          Effect.sync(() =>
            events.some((e) => e._tag === "ProcessStatus" && e.name === "calm" && e.status === "stopped")
          ),
          "the stop"
        )
        expect(alertsOf(events)).toEqual([])
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("restart_loop fires once after N quick restarts (per-app rule)", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          {
            name: "looper",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "30" },
            max_restarts: 100,
            alerts: { restart_loop: { restarts: 3, window: "60s" } }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "restart_loop").length === 1),
          "a restart_loop alert"
        )
        const restartsAtAlert = events.filter((e) => e._tag === "ProcessRestart" && e.name === "looper").length
        expect(restartsAtAlert).toBeGreaterThanOrEqual(3)
        expect(alertsOf(events, "restart_loop")[0]).toMatchObject({
          name: "looper",
          data: { threshold: 3, window_ms: 60_000 }
        })
        // The window as it is written in settings, not in milliseconds.
        expect(alertsOf(events, "restart_loop")[0]!.message).toBe("looper (id 0) restarted 3 times within 1m")
        // Once per window: more restarts, still one alert.
        yield* eventually(
          Effect.sync(
            () => events.filter((e) => e._tag === "ProcessRestart" && e.name === "looper").length >= restartsAtAlert + 3
          ),
          "three more restarts"
        )
        expect(alertsOf(events, "restart_loop")).toHaveLength(1)
        yield* pm.stop("looper")
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("high_memory fires once when a row crosses the global threshold", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const alerts = yield* Alerts
        yield* alerts.setGlobalRules({ memory: 40 * 1024 * 1024 })
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "grower", script: fixture("grow-memory.js"), env: { GROW_TO_MB: "80" } }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "high_memory").length === 1),
          "a high_memory alert"
        )
        const [alert] = alertsOf(events, "high_memory")
        expect(alert).toMatchObject({ id: row!.id, name: "grower", data: { threshold: 40 * 1024 * 1024 } })
        expect(alert!.data.memory_usage as number).toBeGreaterThan(40 * 1024 * 1024)
        // Still above on later samples: no second alert.
        const samplesAfter = () => events.filter((e) => e._tag === "MetricsSample" && e.at > alert!.at).length
        yield* eventually(
          Effect.sync(() => samplesAfter() >= 3),
          "three more samples"
        )
        expect(alertsOf(events, "high_memory")).toHaveLength(1)
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("high_memory says a small threshold in a unit that fits it, not as 0 MB", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([{ name: "mem", script: "sleep", args: ["300"], alerts: { memory: "1K" } }])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "high_memory").length === 1),
          "a high_memory alert"
        )
        const [alert] = alertsOf(events, "high_memory")
        expect(alert).toMatchObject({ id: row!.id, name: "mem", data: { threshold: 1024 } })
        // Any process uses more than a KiB: its size is in KB or MB, with a decimal.
        expect(alert!.message).toMatch(new RegExp(`^mem \\(id ${row!.id}\\) uses \\d+\\.\\d (KB|MB), above 1\\.0 KB$`))
        yield* pm.stop("mem")
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("a per-app memory threshold overrides the global one", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const alerts = yield* Alerts
        yield* alerts.setGlobalRules({ memory: 1024 * 1024 * 1024 })
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "small", script: fixture("grow-memory.js"), env: { GROW_TO_MB: "60" }, alerts: { memory: "30M" } },
          { name: "big", script: fixture("grow-memory.js"), env: { GROW_TO_MB: "60" } }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "high_memory").length >= 1),
          "a high_memory alert"
        )
        const samplesAfter = () =>
          events.filter((e) => e._tag === "MetricsSample" && e.at > alertsOf(events, "high_memory")[0]!.at).length
        yield* eventually(
          Effect.sync(() => samplesAfter() >= 3),
          "three more samples"
        )
        expect(alertsOf(events, "high_memory").map((a) => a.name)).toEqual(["small"])
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("an http check against a closed port raises health_check_failure", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const port = yield* closedPort
        const apps = yield* definitions([
          {
            name: "deaf",
            script: "sleep",
            args: ["300"],
            health_check: { url: `http://127.0.0.1:${port}/health`, interval: "1s", retries: 2 }
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "health_check_failure").length >= 1),
          "a health_check_failure alert"
        )
        expect(alertsOf(events, "health_check_failure")[0]).toMatchObject({
          id: row!.id,
          name: "deaf",
          kind: "health_check_failure"
        })
        yield* pm.stop("deaf")
      }).pipe(Effect.provide(notifications()))
    )
  )
})
