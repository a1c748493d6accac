import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import {
  definitions,
  eventually,
  fixture,
  isAlive,
  PATH_ENV,
  recordEvents,
  withEngine,
  withTempDir
} from "../support/engine"
import { awaitEvent, eventsOf, freeBase, httpGet } from "./helpers"

const server = path.resolve(__dirname, "../../examples/apps/server.js")

describe("reload", () => {
  it.live("three instances: at least two stay online throughout; ids stay, pids change, restarts +1", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const base = freeBase()
        const apps = yield* definitions([
          {
            name: "web",
            script: server,
            instances: 3,
            port: `${base}-${base + 2}`,
            min_uptime: "300ms",
            health_check: { url: "http://127.0.0.1:{port}/health", interval: "1s", retries: 3 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("web", 30_000)
        expect(before.map((r) => r.status)).toEqual(["online", "online", "online"])

        const samples: Array<number> = []
        const sampler = yield* pm.list().pipe(
          Effect.map((rows) => rows.filter((r) => r.name === "web" && r.status === "online").length),
          Effect.tap((online) => Effect.sync(() => samples.push(online))),
          Effect.repeat(Schedule.spaced(Duration.millis(20))),
          Effect.fork
        )
        const result = yield* pm.reload("web")
        yield* Fiber.interrupt(sampler)

        expect(result.restartedInstead).toEqual([])
        // Each replacement takes until its health check passes, so the sampler saw the whole reload.
        expect(samples.length).toBeGreaterThan(10)
        expect(Math.min(...samples)).toBeGreaterThanOrEqual(2)
        expect(samples.some((n) => n === 2)).toBe(true)

        const after = result.rows
        expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id))
        expect(after.map((r) => r.port)).toEqual(before.map((r) => r.port))
        after.forEach((row, i) => {
          expect(row.pid).not.toBeNull()
          expect(row.pid).not.toBe(before[i]!.pid)
          expect(row.restarts).toBe(before[i]!.restarts + 1)
          expect(row.status).toBe("online")
          expect(row.health_status).toBe("healthy")
        })
        for (const row of before) expect(isAlive(row.pid!)).toBe(false)
        // One instance after the other, in order.
        yield* eventually(
          Effect.sync(() => eventsOf(events, "ProcessRestart", "web").length >= 3),
          "three reload events"
        )
        expect(eventsOf(events, "ProcessRestart", "web").map((e) => [e.id, e.reason])).toEqual(
          before.map((r) => [r.id, "reload"])
        )
        // Each replacement serves on its instance's port.
        for (const row of after) {
          const response = yield* httpGet(`http://127.0.0.1:${row.port}/health`)
          expect(JSON.parse(response.body)).toMatchObject({ pid: row.pid })
        }
      })
    )
  )

  it.live("auto: ports: each replacement starts on a new port before the old process stops", () =>
    withEngine((home) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const base = freeBase()
        const apps = yield* definitions([
          {
            name: "elastic",
            script: server,
            instances: 3,
            port: `auto:${base}-${base + 30}`,
            min_uptime: "300ms",
            health_check: { url: "http://127.0.0.1:{port}/health", interval: "1s", retries: 3 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("elastic", 30_000)
        const firstEvent = events.length

        const samples: Array<number> = []
        const sampler = yield* pm.list().pipe(
          Effect.map((rows) => rows.filter((r) => r.name === "elastic" && r.status === "online").length),
          Effect.tap((online) => Effect.sync(() => samples.push(online))),
          Effect.repeat(Schedule.spaced(Duration.millis(20))),
          Effect.fork
        )
        const result = yield* pm.reload("elastic")
        yield* Fiber.interrupt(sampler)

        expect(result.restartedInstead).toEqual([])
        expect(samples.length).toBeGreaterThan(10)
        // The old process serves until its replacement is ready: all three are online throughout.
        expect(Math.min(...samples)).toBe(3)
        const after = result.rows
        expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id))
        after.forEach((row, i) => {
          expect(row.pid).not.toBe(before[i]!.pid)
          expect(row.port).not.toBe(before[i]!.port)
          expect(Number(row.port)).toBeGreaterThanOrEqual(base)
          expect(Number(row.port)).toBeLessThanOrEqual(base + 30)
          expect(row.restarts).toBe(before[i]!.restarts + 1)
          expect([row.status, row.health_status]).toEqual(["online", "healthy"])
        })
        expect(new Set(after.map((r) => r.port)).size).toBe(3)
        expect(yield* pm.list()).toEqual(
          expect.arrayContaining(after.map((r) => expect.objectContaining({ id: r.id, pid: r.pid, port: r.port })))
        )
        for (const row of before) expect(isAlive(row.pid!)).toBe(false)
        // Listeners never see these ids stop (docs/decisions.md).
        yield* eventually(
          Effect.sync(() => eventsOf(events.slice(firstEvent), "ProcessRestart", "elastic").length >= 3),
          "three reload events"
        )
        const statuses = eventsOf(events.slice(firstEvent), "ProcessStatus", "elastic")
        expect(statuses.filter((e) => e.status === "stopping" || e.status === "stopped")).toEqual([])
        // Each replacement serves on its new port, and its pid file names it.
        for (const row of after) {
          const response = yield* httpGet(`http://127.0.0.1:${row.port}/health`)
          expect(JSON.parse(response.body)).toMatchObject({ pid: row.pid })
          const pidFile = path.join(home, "pids", `elastic-${(yield* pm.get(String(row.id))).instance}.pid`)
          expect(fs.readFileSync(pidFile, "utf8").trim()).toBe(String(row.pid))
        }
        // And the table still works on the replaced rows.
        const stopped = yield* pm.stop("elastic")
        expect(stopped.map((r) => r.status)).toEqual(["stopped", "stopped", "stopped"])
        for (const row of after) expect(isAlive(row.pid!)).toBe(false)
      })
    )
  )

  it.live("a replacement that never becomes ready stops the reload; the other instances keep running", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const flag = path.join(dir, "unhealthy")
          const base = freeBase()
          const apps = yield* definitions([
            {
              name: "fragile",
              script: fixture("health-server.js"),
              instances: 3,
              port: `${base}-${base + 2}`,
              min_uptime: "200ms",
              max_restarts: 0,
              env: { UNHEALTHY_FLAG: flag },
              health_check: { url: "http://127.0.0.1:{port}/health", interval: "1s", retries: 2 }
            }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          const before = yield* pm.waitReady("fragile", 30_000)
          // From now on a new process of the app fails its check.
          fs.writeFileSync(flag, "")
          const error = yield* Effect.flip(pm.reload("fragile"))
          expect(error._tag).toBe("PROCESS_START_FAILED")
          if (error._tag === "PROCESS_START_FAILED") {
            expect(error.details.process_id).toBe("fragile")
            expect(error.details.reason).toContain("instance 0")
          }
          const rows = yield* pm.resolve("fragile")
          expect(rows[0]!.status).toBe("errored")
          // Instances 1 and 2 were not touched: same processes, still online and healthy.
          expect(rows.slice(1).map((r) => [r.pid, r.status, r.health_status, r.restarts])).toEqual(
            before.slice(1).map((r) => [r.pid, "online", "healthy", r.restarts])
          )
          for (const row of before.slice(1)) expect(isAlive(row.pid!)).toBe(true)
        })
      )
    )
  )

  it.live("a single instance is restarted instead, and the result says so", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([{ name: "solo", script: "sleep", args: ["300"], min_uptime: "200ms" }])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("solo"), (d) => d.status === "online"),
          "online"
        )
        const result = yield* pm.reload("solo")
        expect(result.restartedInstead).toEqual(["solo"])
        expect(result.rows).toHaveLength(1)
        expect(result.rows[0]!.id).toBe(row!.id)
        expect(result.rows[0]!.pid).not.toBe(row!.pid)
        expect(result.rows[0]!.restarts).toBe(1)
        expect(isAlive(row!.pid!)).toBe(false)
      })
    )
  )
})

describe("restart", () => {
  it.live("--port gives the rows new ports for this run; the definition keeps its setting", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const base = freeBase()
          const moved = base + 10
          const apps = yield* definitions([
            {
              name: "movable",
              script: fixture("write-env.js"),
              instances: 3,
              port: `${base}-${base + 2}`,
              env: { ENV_OUT_DIR: dir }
            }
          ])
          const created = yield* pm.create(apps, { baseEnv: PATH_ENV })
          const envFile = (i: number) => path.join(dir, `${i}.json`)
          const portSeen = (i: number) => {
            try {
              return (JSON.parse(fs.readFileSync(envFile(i), "utf8")) as Record<string, string>).PORT
            } catch {
              return undefined
            }
          }
          yield* eventually(
            Effect.sync(() => [0, 1, 2].every((i) => portSeen(i) === String(base + i))),
            "the first environments"
          )

          const rows = yield* pm.restart("movable", { port: `${moved}-${moved + 2}` })
          expect(rows.map((r) => r.id)).toEqual(created.map((r) => r.id))
          expect(rows.map((r) => r.port)).toEqual([String(moved), String(moved + 1), String(moved + 2)])
          expect(rows.map((r) => r.restarts)).toEqual([1, 1, 1])
          yield* eventually(
            Effect.sync(() => [0, 1, 2].every((i) => portSeen(i) === String(moved + i))),
            "the children see the new PORT"
          )
          expect((yield* pm.list()).map((r) => r.port)).toEqual([String(moved), String(moved + 1), String(moved + 2)])
          const detail = yield* pm.get("movable")
          expect(detail.port).toBe(String(moved))
          expect(detail.config.port).toBe(`${base}-${base + 2}`)
        })
      )
    )
  )

  it.live("--port naming the ports the app itself holds is accepted (restart and reload)", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const base = freeBase()
        const range = `${base}-${base + 1}`
        const apps = yield* definitions([
          {
            name: "steady",
            script: server,
            instances: 2,
            port: range,
            min_uptime: "200ms",
            health_check: { url: "http://127.0.0.1:{port}/health", interval: "1s", retries: 3 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("steady", 30_000)
        // Its own instances hold these ports: that is no conflict.
        const restarted = yield* Effect.either(pm.restart("steady", { port: range }))
        expect(Either.isRight(restarted) ? "ok" : restarted.left._tag).toBe("ok")
        const afterRestart = yield* pm.waitReady("steady", 30_000)
        expect(afterRestart.map((r) => r.port)).toEqual([String(base), String(base + 1)])
        afterRestart.forEach((row, i) => expect(row.pid).not.toBe(before[i]!.pid))
        const reloaded = yield* Effect.either(pm.reload("steady", { port: range }))
        expect(Either.isRight(reloaded) ? "ok" : reloaded.left._tag).toBe("ok")
        const afterReload = yield* pm.waitReady("steady", 30_000)
        expect(afterReload.map((r) => r.port)).toEqual([String(base), String(base + 1)])
        expect(afterReload.map((r) => r.restarts)).toEqual([2, 2])
      })
    )
  )

  it.live("a restart brings back an app that crashed until it was errored", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const events = yield* recordEvents()
          const flag = path.join(dir, "crash")
          fs.writeFileSync(flag, "")
          const apps = yield* definitions([
            {
              name: "phoenix",
              script: fixture("crash-if-exists.js"),
              max_restarts: 0,
              min_uptime: "200ms",
              env: { CRASH_FLAG: flag }
            }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* awaitEvent(events, "ProcessStatus", (e) => e.name === "phoenix" && e.status === "errored", "errored")
          expect((yield* pm.get("phoenix")).status).toBe("errored")

          fs.rmSync(flag)
          const [row] = yield* pm.restart("phoenix")
          expect(row!.status).toBe("online")
          expect(row!.pid).not.toBeNull()
          yield* eventually(
            Effect.map(pm.get("phoenix"), (d) => d.status === "online"),
            "online again"
          )
          const detail = yield* pm.get("phoenix")
          expect(detail.pid).toBe(row!.pid)
          expect(isAlive(detail.pid!)).toBe(true)
        })
      )
    )
  )
})
