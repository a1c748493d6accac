import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { awaitEvent, eventsOf, node } from "./helpers"

describe("events", () => {
  it.live("start and stop publish every status change with its previous status", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([{ name: "quiet", script: "sleep", args: ["300"], min_uptime: "200ms" }])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("quiet"), (d) => d.status === "online"),
          "online"
        )
        yield* pm.stop("quiet")
        yield* awaitEvent(events, "ProcessStatus", (e) => e.name === "quiet" && e.status === "stopped", "stopped")
        const changes = eventsOf(events, "ProcessStatus", "quiet")
        expect(changes.map((e) => [e.previous_status, e.status])).toEqual([
          ["stopped", "starting"],
          ["starting", "online"],
          ["online", "stopping"],
          ["stopping", "stopped"]
        ])
        expect(changes.every((e) => e.id === row!.id && e.instance === 0)).toBe(true)
        // The pid is known from online on, and gone once stopped.
        expect(changes[1]!.pid).toBe(row!.pid)
        expect(changes[2]!.pid).toBe(row!.pid)
        expect(changes[3]!.pid).toBeNull()
        expect(eventsOf(events, "ProcessExit", "quiet")).toEqual([])
      })
    )
  )

  it.live("a crash publishes ProcessExit (abnormal, with its code), a status with the code, and a crash restart", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          {
            name: "crashy",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "300" },
            min_uptime: "100ms",
            max_restarts: 0
          },
          {
            name: "final",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "300" },
            min_uptime: "100ms",
            autorestart: false
          },
          {
            name: "tidy",
            script: node,
            args: ["-e", "setTimeout(() => {}, 300)"],
            min_uptime: "100ms",
            autorestart: false
          }
        ])
        const rows = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const crashy = rows.find((r) => r.name === "crashy")!

        const restart = yield* awaitEvent(events, "ProcessRestart", (e) => e.name === "crashy", "crashy restarted")
        expect(restart).toMatchObject({ id: crashy.id, reason: "crash", restarts: 1 })
        const exit = eventsOf(events, "ProcessExit", "crashy")[0]!
        expect(exit).toMatchObject({ id: crashy.id, pid: crashy.pid, exit_code: 1, signal: null, abnormal: true })
        expect(exit.uptime_ms).toBeGreaterThanOrEqual(250)
        const toRestarting = eventsOf(events, "ProcessStatus", "crashy").find((e) => e.status === "restarting")
        expect(toRestarting).toMatchObject({ previous_status: "online", exit_code: 1, signal: null })

        const errored = yield* awaitEvent(
          events,
          "ProcessStatus",
          (e) => e.name === "final" && e.status === "errored",
          "final errored"
        )
        expect(errored).toMatchObject({ previous_status: "online", exit_code: 1, pid: null })
        expect(eventsOf(events, "ProcessExit", "final")).toMatchObject([{ exit_code: 1, abnormal: true }])

        const stopped = yield* awaitEvent(
          events,
          "ProcessStatus",
          (e) => e.name === "tidy" && e.status === "stopped",
          "tidy stopped"
        )
        expect(stopped).toMatchObject({ previous_status: "online", exit_code: 0 })
        expect(eventsOf(events, "ProcessExit", "tidy")).toMatchObject([{ exit_code: 0, signal: null, abnormal: false }])
      })
    )
  )

  it.live("a process killed by a signal publishes ProcessExit with the signal", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "victim", script: "sleep", args: ["300"], min_uptime: "100ms", autorestart: false }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        process.kill(row!.pid!, "SIGKILL")
        const exit = yield* awaitEvent(events, "ProcessExit", (e) => e.name === "victim", "the exit")
        expect(exit).toMatchObject({ pid: row!.pid, exit_code: null, signal: "SIGKILL", abnormal: true })
        yield* awaitEvent(events, "ProcessStatus", (e) => e.name === "victim" && e.status === "errored", "errored")
        expect((yield* pm.get("victim")).status).toBe("errored")
      })
    )
  )

  it.live("MetricsSample events carry each live row's cpu_usage and memory_usage, as the rows show them", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          {
            name: "busy",
            script: node,
            args: [
              "-e",
              "const b = Buffer.alloc(20 * 1024 * 1024, 1); setInterval(() => { for (let i = 0; i < 1e6; i++) b[i % b.length]++ }, 20)"
            ]
          },
          { name: "idle", script: "sleep", args: ["300"], autorestart: false }
        ])
        const rows = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const busy = rows.find((r) => r.name === "busy")!
        yield* pm.stop("idle")
        const stoppedAt = Date.now()
        // Two samples of the same process are needed for a CPU rate.
        yield* eventually(
          Effect.map(pm.get("busy"), (d) => d.memory_usage > 20 * 1024 * 1024 && d.cpu_usage > 0),
          "metrics of busy"
        )
        const shown = yield* pm.get("busy")
        const sample = yield* awaitEvent(
          events,
          "MetricsSample",
          (e) =>
            e.processes.some(
              (p) => p.id === busy.id && p.memory_usage === shown.memory_usage && p.cpu_usage === shown.cpu_usage
            ),
          "a sample with the values the row shows"
        )
        expect(Number.isNaN(Date.parse(sample.timestamp))).toBe(false)
        expect(sample.processes.find((p) => p.id === busy.id)).toMatchObject({
          name: "busy",
          instance: 0,
          pid: busy.pid
        })
        // A stopped row has no process to measure.
        // (A sample taken after the stop: one may have been taken between the create and the stop.)
        const latest = yield* awaitEvent(
          events,
          "MetricsSample",
          (e) => Date.parse(e.timestamp) > stoppedAt,
          "a sample after the stop"
        )
        expect(latest.processes.map((p) => p.name)).toEqual(["busy"])
      })
    )
  )
})
