/**
 * `depends_on` conditions (docs/configuration.md, depends_on): a dependent's processes are spawned
 * only once its dependency meets the condition — proven by the dependency's state at every change
 * of the dependent, not by timing — and a dependency that can never meet it fails the start with
 * PROCESS_START_FAILED naming it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ProcessManager as ProcessManagerType } from "../../src/supervisor/ProcessManager"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import type { RowState } from "../../src/supervisor/Row"
import { definitions, eventually, PATH_ENV, withEngine, withTempDir } from "../support/engine"
import { node } from "./helpers"

/** The dependency's state at every change of the dependent's first row, for the life of the scope. */
const watchPair = (pm: ProcessManagerType, dependent: string, dependency: string) =>
  Effect.gen(function* () {
    const [dependentRow] = yield* pm.rowsFor(dependent)
    const [dependencyRow] = yield* pm.rowsFor(dependency)
    const seen: Array<{ readonly dependent: RowState; readonly dependency: RowState }> = []
    yield* pm.changes(dependentRow!).pipe(
      Stream.runForEach((state) =>
        Effect.map(pm.rowState(dependencyRow!), (other) => void seen.push({ dependent: state, dependency: other }))
      ),
      Effect.forkScoped
    )
    yield* Effect.yieldNow()
    return seen
  })

/** Starts `apps` in the background and returns the running creation once both apps are in the table. */
const createInBackground = (apps: ReadonlyArray<object>, count: number) =>
  Effect.gen(function* () {
    const pm = yield* ProcessManager
    const creating = yield* Effect.fork(pm.create(yield* definitions(apps), { baseEnv: PATH_ENV }))
    yield* eventually(
      Effect.map(pm.list(), (rows) => rows.length === count),
      "the rows in the table"
    )
    return creating
  })

/** Waits until `name` waits for its dependency with no process, saying what for. */
const awaitWaiting = (pm: ProcessManagerType, name: string, waitingFor: string) =>
  eventually(
    Effect.map(
      pm.get(name),
      (detail) => detail.status === "starting" && detail.pid === null && detail.waiting_for === waitingFor
    ),
    `${name} waiting for ${waitingFor}`
  )

const sleeper = (name: string, dependsOn: object) => ({ name, script: "sleep", args: ["300"], depends_on: [dependsOn] })

describe("depends_on conditions that are met", () => {
  it.live("healthy: the dependent starts once the dependency's health check passed", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const marker = path.join(dir, "healthy")
          const check = path.join(dir, "check.sh")
          fs.writeFileSync(check, `#!/bin/sh\ntest -f ${marker}\n`, { mode: 0o755 })
          const creating = yield* createInBackground(
            [
              { name: "db", script: "sleep", args: ["300"], health_check: { script: check, interval: "1s" } },
              sleeper("api", { name: "db", condition: "healthy" })
            ],
            2
          )
          const seen = yield* watchPair(pm, "api", "db")
          yield* awaitWaiting(pm, "api", "db to be healthy")
          expect((yield* pm.get("db")).health_check.status).not.toBe("healthy")
          fs.writeFileSync(marker, "")
          yield* Fiber.join(creating)
          const api = yield* pm.get("api")
          expect(api.pid).not.toBeNull()
          expect(api.waiting_for).toBeNull()
          // api never had a process while db was not healthy.
          const withPid = seen.filter((s) => s.dependent.pid !== null)
          expect(withPid.length).toBeGreaterThan(0)
          expect(withPid.every((s) => s.dependency.health.status === "healthy")).toBe(true)
        })
      )
    )
  )

  it.live("completed_successfully: the dependent starts after the one-shot app exited 0", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const marker = path.join(dir, "go")
          const migrate = `const fs = require("fs"); setInterval(() => { if (fs.existsSync(${JSON.stringify(marker)})) process.exit(0) }, 50)`
          const creating = yield* createInBackground(
            [
              { name: "migrate", script: node, args: ["-e", migrate], autorestart: false },
              sleeper("api", { name: "migrate", condition: "completed_successfully" })
            ],
            2
          )
          const seen = yield* watchPair(pm, "api", "migrate")
          yield* awaitWaiting(pm, "api", "migrate to complete successfully (exit 0)")
          expect((yield* pm.get("migrate")).status).toBe("online")
          fs.writeFileSync(marker, "")
          const rows = yield* Fiber.join(creating)
          expect(rows.map((r) => [r.name, r.status])).toEqual([
            ["migrate", "stopped"],
            ["api", "online"]
          ])
          const withPid = seen.filter((s) => s.dependent.pid !== null)
          expect(withPid.length).toBeGreaterThan(0)
          expect(withPid.every((s) => s.dependency.status === "stopped" && s.dependency.lastExit?.code === 0)).toBe(
            true
          )
        })
      )
    )
  )

  it.live(
    "log_ready: the dependent starts once a line matching ready_log_line appeared, not when the dependency is online",
    () =>
      withTempDir((dir) =>
        withEngine(() =>
          Effect.gen(function* () {
            const pm = yield* ProcessManager
            const marker = path.join(dir, "go")
            const db = `const fs = require("fs"); console.log("booting, not ready yet"); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(marker)})) { clearInterval(t); console.log("ready to accept connections on 5432"); setInterval(() => {}, 1000) } }, 50)`
            const creating = yield* createInBackground(
              [
                { name: "db", script: node, args: ["-e", db], ready_log_line: "^ready to accept connections on \\d+$" },
                sleeper("api", { name: "db", condition: "log_ready" })
              ],
              2
            )
            const seen = yield* watchPair(pm, "api", "db")
            yield* awaitWaiting(pm, "api", "db to print its ready line")
            // Online and talking, but not ready: the first line does not match.
            yield* eventually(
              Effect.map(pm.readLogs("db"), (lines) => lines.some((line) => line.message.includes("booting"))),
              "db's first line"
            )
            expect((yield* pm.get("db")).status).toBe("online")
            expect((yield* pm.get("api")).pid).toBeNull()
            fs.writeFileSync(marker, "")
            yield* Fiber.join(creating)
            const withPid = seen.filter((s) => s.dependent.pid !== null)
            expect(withPid.length).toBeGreaterThan(0)
            expect(withPid.every((s) => s.dependency.readyLine)).toBe(true)
            // show tells what an app waits for.
            expect((yield* pm.get("api")).config.depends_on).toEqual([{ name: "db", condition: "log_ready" }])
            expect((yield* pm.get("db")).config.ready_log_line).toBe("^ready to accept connections on \\d+$")
          })
        )
      )
  )
})

describe("depends_on conditions that can never be met", () => {
  const expectFailure = (
    apps: ReadonlyArray<object>,
    expected: {
      readonly dependency: string
      readonly condition: string
      readonly reason: string
      readonly suggestion: string
    }
  ) =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const error = yield* Effect.flip(pm.create(yield* definitions(apps), { baseEnv: PATH_ENV }))
        expect(error._tag).toBe("PROCESS_START_FAILED")
        if (error._tag !== "PROCESS_START_FAILED") return
        expect(error.details).toEqual({ process_id: "api", ...expected })
        expect(error.message).toBe(`api was not started: ${expected.reason}`)
        // The dependent was never spawned; it says why it is errored; the table still answers.
        const api = yield* pm.get("api")
        expect([api.status, api.pid, api.waiting_for]).toEqual(["errored", null, null])
        expect((yield* pm.list()).length).toBe(2)
      })
    )

  it.live("completed_successfully, and the one-shot app exits non-zero", () =>
    expectFailure(
      [
        { name: "migrate", script: node, args: ["-e", "process.exit(2)"], autorestart: false },
        sleeper("api", { name: "migrate", condition: "completed_successfully" })
      ],
      {
        dependency: "migrate",
        condition: "completed_successfully",
        reason: "it waits for migrate to complete successfully (exit 0), but migrate is errored (exited with code 2)",
        suggestion: "see why with `pmfx logs migrate`, fix it and start it (pmfx start migrate), then start api again"
      }
    )
  )

  it.live("log_ready, and the dependency crashes before its ready line", () =>
    expectFailure(
      [
        {
          name: "db",
          script: node,
          args: ["-e", "console.log('starting'); process.exit(1)"],
          max_restarts: 0,
          ready_log_line: "ready"
        },
        sleeper("api", { name: "db", condition: "log_ready" })
      ],
      {
        dependency: "db",
        condition: "log_ready",
        reason: "it waits for db to print its ready line, but db is errored (exited with code 1)",
        suggestion: "see why with `pmfx logs db`, fix it and start it (pmfx start db), then start api again"
      }
    )
  )

  it.live("healthy, and the dependency is registered stopped (autostart false)", () =>
    expectFailure(
      [
        { name: "db", script: "sleep", args: ["300"], autostart: false, health_check: { script: "/bin/true" } },
        sleeper("api", { name: "db", condition: "healthy" })
      ],
      {
        dependency: "db",
        condition: "healthy",
        reason: "it waits for db to be healthy, but db is stopped",
        suggestion: "start db first (pmfx start db), then api"
      }
    )
  )
})

describe("stopping several apps", () => {
  it.live("stop all and the engine's shutdown (kill) stop dependents first, one level after the other", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const stops = path.join(dir, "stops.txt")
          // Each app writes its name when SIGTERM comes; mid a moment later, so a stop that did not wait would show.
          const app = (name: string, delayMs: number, dependsOn: ReadonlyArray<string>) => ({
            name,
            script: node,
            args: [
              "-e",
              `process.on("SIGTERM", () => setTimeout(() => { require("fs").appendFileSync(${JSON.stringify(stops)}, "${name}\\n"); process.exit(0) }, ${delayMs})); console.log("handler set"); setInterval(() => {}, 1000)`
            ],
            min_uptime: "100ms",
            depends_on: dependsOn
          })
          const apps = yield* definitions([app("top", 0, ["mid"]), app("mid", 200, ["base"]), app("base", 0, [])])
          const order = () =>
            fs
              .readFileSync(stops, "utf8")
              .split("\n")
              .filter((line) => line !== "")
          // Each process says when its SIGTERM handler is in place (a signal before would just end it).
          const handlersSet = Effect.forEach(["top", "mid", "base"], (name) =>
            eventually(
              Effect.map(pm.readLogs(name), (lines) => lines.some((line) => line.message === "handler set")),
              `${name}'s handler`
            )
          )
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* handlersSet
          yield* pm.stop("all")
          expect(order()).toEqual(["top", "mid", "base"])
          fs.rmSync(stops)
          yield* pm.restart("all")
          yield* eventually(
            Effect.map(pm.list(), (rows) => rows.every((row) => row.status === "online")),
            "all online again"
          )
          yield* Effect.forEach(["top", "mid", "base"], (name) =>
            eventually(
              Effect.map(
                pm.readLogs(name),
                (lines) => lines.filter((line) => line.message === "handler set").length === 2
              ),
              `${name}'s handler again`
            )
          )
          yield* pm.shutdown()
          expect(order()).toEqual(["top", "mid", "base"])
        })
      )
    )
  )
})
