import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, isAlive, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { awaitEvent, closedPort, eventsOf, freeBase, recordStates } from "./helpers"

const server = path.resolve(__dirname, "../../examples/apps/server.js")
const checkScript = fixture("health-exit.sh")
// The probe runs the script itself (no shell): it must be executable whatever the checkout did.
fs.chmodSync(checkScript, 0o755)

describe("http health checks", () => {
  it.live("a passing check: online and healthy, with response_time and last_check", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const apps = yield* definitions([
          {
            name: "api",
            script: server,
            port: String(port),
            min_uptime: "200ms",
            health_check: { url: `http://127.0.0.1:${port}/health`, interval: "250ms", retries: 2 }
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect(row!.health_status).toBe("unknown")
        yield* eventually(
          Effect.map(pm.get("api"), (d) => d.status === "online"),
          "online"
        )
        const detail = yield* pm.get("api")
        expect(detail.health_status).toBe("healthy")
        expect(detail.health_check).toMatchObject({
          enabled: true,
          check_type: "http",
          url: `http://127.0.0.1:${port}/health`,
          status: "healthy"
        })
        expect(typeof detail.health_check.response_time).toBe("number")
        expect(detail.health_check.response_time).toBeGreaterThanOrEqual(0)
        expect(detail.health_check.last_check).not.toBeNull()
        expect(Number.isNaN(Date.parse(detail.health_check.last_check!))).toBe(false)
        expect(detail.restarts).toBe(0)
      })
    )
  )

  it.live("a check that answers 503 after being online: unhealthy, then restarted with reason health", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const port = freeBase()
        const apps = yield* definitions([
          {
            name: "degrading",
            script: fixture("health-server.js"),
            port: String(port),
            min_uptime: "200ms",
            env: { HEALTHY_FOR_MS: "2000" },
            health_check: { url: `http://127.0.0.1:${port}/health`, interval: "250ms", retries: 2 }
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const states = yield* recordStates(pm, "degrading")
        yield* eventually(
          Effect.map(pm.get("degrading"), (d) => d.status === "online" && d.health_status === "healthy"),
          "online and healthy"
        )
        const restart = yield* awaitEvent(
          events,
          "ProcessRestart",
          (e) => e.name === "degrading",
          "a restart after the check failed"
        )
        expect(restart).toMatchObject({ id: row!.id, reason: "health", restarts: 1 })
        expect((yield* pm.get("degrading")).restarts).toBeGreaterThanOrEqual(1)
        expect(states.some((s) => s.health.status === "unhealthy")).toBe(true)
        const unhealthy = eventsOf(events, "HealthChanged", "degrading").find((e) => e.status === "unhealthy")
        expect(unhealthy).toMatchObject({ id: row!.id, previous_status: "healthy", failures: 2 })
        expect(unhealthy!.detail).toContain("503")
        // The restart replaced the process; it comes back online.
        expect(isAlive(row!.pid!)).toBe(false)
        yield* eventually(
          Effect.map(pm.get("degrading"), (d) => d.status === "online" && d.pid !== row!.pid && d.restarts >= 1),
          "online again"
        )
      })
    )
  )

  it.live("a check against a closed port while starting: unhealthy and restarted with reason health", () =>
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
            health_check: { url: `http://127.0.0.1:${port}/health`, interval: "250ms", retries: 2 }
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const states = yield* recordStates(pm, "deaf")
        const restart = yield* awaitEvent(
          events,
          "ProcessRestart",
          (e) => e.name === "deaf",
          "a restart after the check failed"
        )
        expect(restart).toMatchObject({ id: row!.id, reason: "health", restarts: 1 })
        expect((yield* pm.get("deaf")).restarts).toBeGreaterThanOrEqual(1)
        expect(states.some((s) => s.health.status === "unhealthy")).toBe(true)
        // Never online: the check never passed.
        expect(states.some((s) => s.status === "online")).toBe(false)
        const unhealthy = eventsOf(events, "HealthChanged", "deaf").find((e) => e.status === "unhealthy")
        expect(unhealthy).toMatchObject({ id: row!.id, failures: 2 })
        expect(unhealthy!.detail).toMatch(/ECONNREFUSED/)
        expect(isAlive(row!.pid!)).toBe(false)
      })
    )
  )

  it.live("a process that never becomes healthy while starting ends errored after max_restarts", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const port = yield* closedPort
        const apps = yield* definitions([
          {
            name: "hopeless",
            script: "sleep",
            args: ["300"],
            max_restarts: 1,
            health_check: { url: `http://127.0.0.1:${port}/`, interval: "250ms", retries: 2 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* awaitEvent(
          events,
          "ProcessStatus",
          (e) => e.name === "hopeless" && e.status === "errored",
          "errored",
          45_000
        )
        const detail = yield* pm.get("hopeless")
        expect(detail.pid).toBeNull()
        expect(detail.restarts).toBe(1)
        expect(eventsOf(events, "ProcessRestart", "hopeless").map((e) => e.reason)).toEqual(["health"])
        // Every process it started is gone.
        const pids = new Set(
          eventsOf(events, "ProcessStatus", "hopeless").flatMap((e) => (e.pid === null ? [] : [e.pid]))
        )
        expect(pids.size).toBeGreaterThanOrEqual(2)
        for (const pid of pids) expect(isAlive(pid)).toBe(false)
        // Errored, it shows the check that made it give up; stopped, there is nothing left to check.
        expect(detail.health_status).toBe("unhealthy")
        yield* pm.stop("hopeless")
        expect((yield* pm.get("hopeless")).health_status).toBe("unknown")
      })
    )
  )
})

describe("script health checks", () => {
  it.live("a script that exits 0: online and healthy", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          {
            name: "scripted",
            script: "sleep",
            args: ["300"],
            min_uptime: "200ms",
            env: { HEALTH_EXIT_CODE: "0" },
            health_check: { script: checkScript, interval: "250ms", retries: 2 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("scripted"), (d) => d.status === "online"),
          "online"
        )
        const detail = yield* pm.get("scripted")
        expect(detail.health_status).toBe("healthy")
        expect(detail.health_check).toMatchObject({ enabled: true, check_type: "script", status: "healthy" })
        expect(typeof detail.health_check.response_time).toBe("number")
      })
    )
  )

  it.live("a script that exits 1: unhealthy and restarted with reason health", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          {
            name: "scripted-bad",
            script: "sleep",
            args: ["300"],
            env: { HEALTH_EXIT_CODE: "1" },
            health_check: { script: checkScript, interval: "250ms", retries: 2 }
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const states = yield* recordStates(pm, "scripted-bad")
        const restart = yield* awaitEvent(
          events,
          "ProcessRestart",
          (e) => e.name === "scripted-bad",
          "a restart after the check failed"
        )
        expect(restart).toMatchObject({ id: row!.id, reason: "health", restarts: 1 })
        expect((yield* pm.get("scripted-bad")).restarts).toBeGreaterThanOrEqual(1)
        expect(states.some((s) => s.health.status === "unhealthy")).toBe(true)
        const unhealthy = eventsOf(events, "HealthChanged", "scripted-bad").find((e) => e.status === "unhealthy")
        expect(unhealthy).toMatchObject({ id: row!.id, failures: 2, detail: "exit code 1" })
        expect(isAlive(row!.pid!)).toBe(false)
      })
    )
  )
})
