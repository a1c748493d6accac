/** `cpu_threshold` (docs/architecture.md §9): a row above `cpu_percent` in every sample for `cpu_duration`. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { alertsOf, notifications } from "./helpers"

const CPU_PERCENT = 20
const CPU_DURATION_MS = 2_000
const rules = { cpu_percent: CPU_PERCENT, cpu_duration: "2s" }

describe("cpu_threshold", () => {
  it.live("fires once for an app that stays above cpu_percent for cpu_duration, never for an idle one", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "burner", script: fixture("burn-cpu.js"), alerts: rules },
          { name: "idler", script: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], alerts: rules }
        ])
        const [burner, idler] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => alertsOf(events, "cpu_threshold").length >= 1),
          "a cpu_threshold alert"
        )
        const [alert] = alertsOf(events, "cpu_threshold")
        expect(alert).toMatchObject({
          id: burner!.id,
          name: "burner",
          instance: 0,
          kind: "cpu_threshold",
          data: { pid: burner!.pid, threshold: CPU_PERCENT, duration_ms: CPU_DURATION_MS }
        })
        expect(alert!.data.cpu_usage as number).toBeGreaterThan(CPU_PERCENT)
        // The time above in seconds, as a duration setting is written, and the usage that fired it.
        expect(alert!.message).toMatch(
          new RegExp(
            `^burner \\(id ${burner!.id}\\) above ${CPU_PERCENT}% CPU for \\d+s \\(now ${String(alert!.data.cpu_usage)}%\\)$`
          )
        )

        // It waited for the whole duration: the first sample above the threshold came at least
        // cpu_duration before the alert (the alert's clock and the recorder's differ by moments).
        const samplesOf = (id: number) =>
          events.flatMap((event) =>
            event._tag === "MetricsSample"
              ? event.processes.filter((p) => p.id === id).map((p) => ({ ...p, at: event.at }))
              : []
          )
        const firstAbove = samplesOf(burner!.id).find((sample) => sample.cpu_usage > CPU_PERCENT)
        expect(firstAbove).toBeDefined()
        expect(Date.parse(alert!.timestamp) - firstAbove!.at).toBeGreaterThanOrEqual(CPU_DURATION_MS - 100)

        // Both apps started together, so by now the idle one has had as many samples as the
        // burner needed; a few more samples cover any sampling skew. Still one alert, for the
        // burner only (once per episode).
        const samplesNow = samplesOf(idler!.id).length
        yield* eventually(
          Effect.sync(() => samplesOf(idler!.id).length >= samplesNow + 4),
          "four more samples"
        )
        expect(alertsOf(events, "cpu_threshold").map((a) => a.name)).toEqual(["burner"])
      }).pipe(Effect.provide(notifications()))
    )
  )
})
