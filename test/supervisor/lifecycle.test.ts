import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { liveGroupMembers } from "../../src/monitor/procfs"
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
import { randomPortBase } from "../support/ports"
import { eventsOf } from "./helpers"

const node = process.execPath
/** A port range unlikely to be used by anything else on the machine. */
const freeBase = () => randomPortBase(10)

const statusOf = (pm: ProcessManager, target: string) =>
  Effect.map(pm.resolve(target), (rows) => rows.map((r) => r.status))

describe("restarts", () => {
  it.live("a crash is restarted and restarts goes up", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "crasher", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "300" }, min_uptime: "100ms" }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        // Online as soon as it is up (min_uptime only counts unstable restarts).
        expect(row!.status).toBe("online")
        yield* eventually(
          Effect.map(pm.get("crasher"), (d) => d.restarts >= 3 && d.pid !== null),
          "three restarts"
        )
        const detail = yield* pm.get("crasher")
        expect(detail.pid).not.toBe(row!.pid)
        expect(["starting", "online", "restarting"]).toContain(detail.status)
      })
    )
  )

  it.live("a process that exits at once ends errored after max_restarts, with growing delays", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          // min_uptime far above any boot: with the default 1 s, a Node boot slowed past it on a
          // loaded machine counted as a stable run and the restarts went on (6 instead of 3).
          { name: "flaky", script: node, args: ["-e", "process.exit(2)"], max_restarts: 3, min_uptime: "1h" }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(statusOf(pm, "flaky"), (s) => s[0] === "errored"),
          "errored"
        )
        const detail = yield* pm.get("flaky")
        expect(detail.restarts).toBe(3)
        const exits = events.filter((e) => e._tag === "ProcessExit")
        expect(exits).toHaveLength(4)
        const gaps = exits.slice(1).map((e, i) => e.at - exits[i]!.at)
        // Backoff doubles from 100 ms: each gap holds at least its delay. (Comparing gaps with each
        // other flaked on a loaded machine, where a Node boot can take longer than the delays.)
        expect(gaps[0]!).toBeGreaterThanOrEqual(100)
        expect(gaps[1]!).toBeGreaterThanOrEqual(200)
        expect(gaps[2]!).toBeGreaterThanOrEqual(400)
        const last = events.filter((e) => e._tag === "ProcessStatus").at(-1)
        expect(last).toMatchObject({ status: "errored", exit_code: 2 })
      })
    )
  )

  it.live(
    "min_uptime: online at once; exits within min_uptime are unstable (errored after max_restarts), later exits are not",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const events = yield* recordEvents()
          const apps = yield* definitions([
            // Each run lasts ~300 ms: shorter than its min_uptime (5 s), so every exit is unstable.
            {
              name: "short",
              script: fixture("crash-after.js"),
              env: { CRASH_AFTER_MS: "300" },
              min_uptime: "5s",
              max_restarts: 2
            },
            // The same runs, longer than its min_uptime (100 ms): stable, so max_restarts 0 never ends it.
            {
              name: "long",
              script: fixture("crash-after.js"),
              env: { CRASH_AFTER_MS: "300" },
              min_uptime: "100ms",
              max_restarts: 0
            }
          ])
          const created = yield* pm.create(apps, { baseEnv: PATH_ENV })
          expect(created.map((r) => r.status)).toEqual(["online", "online"])
          yield* eventually(
            Effect.map(pm.get("short"), (d) => d.status === "errored"),
            "short errored"
          )
          const short = yield* pm.get("short")
          expect(short.restarts).toBe(2)
          // Every run of `short` was online before it exited (online does not wait for min_uptime).
          const shortChanges = eventsOf(events, "ProcessStatus", "short").map((e) => e.status)
          expect(shortChanges.filter((s) => s === "online")).toHaveLength(3)
          yield* eventually(
            Effect.map(pm.get("long"), (d) => d.restarts >= 3),
            "long restarted three times"
          )
          expect(["online", "restarting", "starting"]).toContain((yield* pm.get("long")).status)
        })
      )
  )

  it.live("autorestart off: exit 0 ends stopped, a non-zero exit ends errored", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "clean", script: node, args: ["-e", "setTimeout(() => {}, 100)"], autorestart: false },
          { name: "dirty", script: node, args: ["-e", "setTimeout(() => process.exit(5), 100)"], autorestart: false }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.list(), (rows) => rows[0]!.status === "stopped" && rows[1]!.status === "errored"),
          "settled"
        )
        const rows = yield* pm.list()
        expect(rows.map((r) => r.restarts)).toEqual([0, 0])
      })
    )
  )
})

describe("stopping", () => {
  it.live("a process that ignores SIGTERM is killed after kill_timeout, and its grandchild too", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const pidsFile = path.join(dir, "pids.json")
          const apps = yield* definitions([
            { name: "stubborn", script: fixture("ignore-sigterm.js"), kill_timeout: "1s", env: { PIDS_FILE: pidsFile } }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.sync(() => fs.existsSync(pidsFile)),
            "pids written"
          )
          const pids = JSON.parse(fs.readFileSync(pidsFile, "utf8")) as { child: number; grandchild: number }
          expect(isAlive(pids.child) && isAlive(pids.grandchild)).toBe(true)
          const started = Date.now()
          const [row] = yield* pm.stop("stubborn")
          expect(row!.status).toBe("stopped")
          // SIGTERM was ignored, so only SIGKILL after kill_timeout could end them.
          expect(Date.now() - started).toBeGreaterThanOrEqual(900)
          expect(isAlive(pids.child)).toBe(false)
          expect(isAlive(pids.grandchild)).toBe(false)
        })
      )
    )
  )

  it.live("stopping an app leaves no process of its group behind, and stop is idempotent", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "family", script: "sh", args: ["-c", "sleep 300 & sleep 300 & wait"] }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const pgid = row!.pid!
        yield* eventually(
          Effect.map(liveGroupMembers(pgid), (members) => members.length === 3),
          "three processes in the group"
        )
        yield* pm.stop("family")
        expect(yield* liveGroupMembers(pgid)).toEqual([])
        const again = yield* pm.stop("family")
        expect(again[0]!.status).toBe("stopped")
      })
    )
  )
})

describe("instances and ports", () => {
  it.live("three instances on a range each see their own PORT and instance id", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const base = freeBase()
          const apps = yield* definitions([
            {
              name: "trio",
              script: fixture("write-env.js"),
              instances: 3,
              port: `${base}-${base + 2}`,
              env: { ENV_OUT_DIR: dir }
            }
          ])
          const rows = yield* pm.create(apps, { baseEnv: { ...PATH_ENV, FROM_CALLER: "yes" } })
          expect(rows.map((r) => r.port)).toEqual([String(base), String(base + 1), String(base + 2)])
          expect(new Set(rows.map((r) => r.id)).size).toBe(3)
          yield* eventually(
            Effect.sync(() => [0, 1, 2].every((i) => fs.existsSync(path.join(dir, `${i}.json`)))),
            "env files"
          )
          for (const i of [0, 1, 2]) {
            const env = JSON.parse(fs.readFileSync(path.join(dir, `${i}.json`), "utf8")) as Record<string, string>
            expect(env.PORT).toBe(String(base + i))
            expect(env.PMFX_INSTANCE_ID).toBe(String(i))
            expect(env.NODE_APP_INSTANCE).toBe(String(i))
            expect(env.FROM_CALLER).toBe("yes")
          }
        })
      )
    )
  )

  it.live("auto: skips a port bound by a foreign listener, and a fixed port already bound is PORT_IN_USE", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const base = freeBase()
        const foreign = net.createServer()
        yield* Effect.acquireRelease(
          Effect.async<void>((resume) => void foreign.listen(base, "127.0.0.1", () => resume(Effect.void))),
          () => Effect.async<void>((resume) => void foreign.close(() => resume(Effect.void)))
        )
        const autoApps = yield* definitions([
          { name: "auto", script: "sleep", args: ["300"], port: `auto:${base}-${base + 10}` }
        ])
        const [auto] = yield* pm.create(autoApps, { baseEnv: PATH_ENV })
        expect(auto!.port).toBe(String(base + 1))

        const fixed = yield* definitions([{ name: "fixed", script: "sleep", args: ["300"], port: String(base) }])
        const error = yield* Effect.flip(pm.create(fixed, { baseEnv: PATH_ENV }))
        expect(error._tag).toBe("PORT_IN_USE")
        if (error._tag === "PORT_IN_USE") expect(error.details.port).toBe(base)
        // A port another row holds is refused the same way, and nothing was added.
        const taken = yield* definitions([{ name: "taken", script: "sleep", args: ["300"], port: String(base + 1) }])
        const second = yield* Effect.flip(pm.create(taken, { baseEnv: PATH_ENV }))
        expect(second._tag).toBe("PORT_IN_USE")
        expect((yield* pm.list()).map((r) => r.name)).toEqual(["auto"])
      })
    )
  )

  it.live("too few ports for the instances is INSUFFICIENT_RESOURCES", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const base = freeBase()
        const apps = yield* definitions([{ name: "one", script: "sleep", args: ["300"], port: `${base}-${base + 1}` }])
        const [app] = apps
        const error = yield* Effect.flip(pm.create([{ ...app!, instances: 3 }], { baseEnv: PATH_ENV }))
        expect(error._tag).toBe("INSUFFICIENT_RESOURCES")
        if (error._tag === "INSUFFICIENT_RESOURCES")
          expect(error.details).toMatchObject({ resource: "ports", available: 2, required: 3 })
      })
    )
  )
})

describe("start failures and addressing", () => {
  it.live(
    "a missing executable is PROCESS_START_FAILED and the creation is not kept, a missing cwd is FILE_ERROR, and another app keeps running",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const good = yield* definitions([{ name: "good", script: "sleep", args: ["300"] }])
          const [goodRow] = yield* pm.create(good, { baseEnv: PATH_ENV })
          const bad = yield* definitions([{ name: "bad", script: "/nonexistent/bin/server" }])
          const error = yield* Effect.flip(pm.create(bad, { baseEnv: PATH_ENV }))
          expect(error._tag).toBe("PROCESS_START_FAILED")
          if (error._tag === "PROCESS_START_FAILED") {
            expect(error.details.process_id).toBe("bad")
            expect(error.details.reason).toContain("/nonexistent/bin/server")
            expect(error.details.suggestion).not.toBe("")
          }
          const missingCommand = yield* definitions([{ name: "nocmd", script: "definitely-not-a-command-pmfx" }])
          const error2 = yield* Effect.flip(pm.create(missingCommand, { baseEnv: PATH_ENV }))
          expect(error2._tag).toBe("PROCESS_START_FAILED")
          const badCwd = yield* definitions([
            { name: "nocwd", script: "sleep", args: ["1"], cwd: "/nonexistent/folder" }
          ])
          // A cwd that is no folder is caught before the app is added (FILE_ERROR, docs/api.md).
          const error3 = yield* Effect.flip(pm.create(badCwd, { baseEnv: PATH_ENV }))
          expect(error3._tag).toBe("FILE_ERROR")
          if (error3._tag === "FILE_ERROR")
            expect(error3.details).toMatchObject({ field: "cwd", path: "/nonexistent/folder", reason: "ENOENT" })
          const rows = yield* pm.list()
          // Creations that failed before their first spawn leave no row (the names are free again).
          expect(rows.map((r) => r.name)).toEqual(["good"])
          expect(rows[0]!.pid).toBe(goodRow!.pid)
          expect(isAlive(goodRow!.pid!)).toBe(true)
        })
      )
  )

  it.live("ids, names, namespaces and all address rows; unknown ids are PROCESS_NOT_FOUND", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "web", script: "sleep", args: ["300"], instances: 2, namespace: "front" },
          { name: "jobs", script: "sleep", args: ["300"], namespace: "back" }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect((yield* pm.resolve("1")).map((r) => r.id)).toEqual([1])
        expect((yield* pm.resolve("web")).map((r) => r.id)).toEqual([0, 1])
        expect((yield* pm.resolve("back")).map((r) => r.id)).toEqual([2])
        expect((yield* pm.resolve("all")).map((r) => r.id)).toEqual([0, 1, 2])
        const detail = yield* pm.get("web")
        expect(detail.app_instances).toEqual([0, 1])
        expect(detail.config).toMatchObject({
          script: "/usr/bin/sleep".replace("/usr/bin/sleep", detail.config.script),
          instances: 2
        })
        const missing = yield* Effect.flip(pm.get("wbe"))
        expect(missing._tag).toBe("PROCESS_NOT_FOUND")
        expect(missing.details).toMatchObject({ process_id: "wbe", suggestion: 'did you mean "web"?' })
        const missingId = yield* Effect.flip(pm.stop("42"))
        expect(missingId.details.process_id).toBe("42")
        // Nothing else was disturbed.
        expect((yield* pm.list()).every((r) => r.status !== "stopped")).toBe(true)
      })
    )
  )

  it.live("start of a running app is PROCESS_ALREADY_RUNNING; a duplicate name is PROCESS_ALREADY_EXISTS", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([{ name: "svc", script: "sleep", args: ["300"], instances: 2 }])
        const rows = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const running = yield* Effect.flip(pm.start("svc"))
        expect(running._tag).toBe("PROCESS_ALREADY_RUNNING")
        if (running._tag === "PROCESS_ALREADY_RUNNING") expect(running.details.pid).toBe(rows[0]!.pid)
        const exists = yield* Effect.flip(pm.create(apps, { baseEnv: PATH_ENV }))
        expect(exists._tag).toBe("PROCESS_ALREADY_EXISTS")
        // Mixed states: start brings back the stopped row only.
        yield* pm.stop("1")
        const after = yield* pm.start("svc")
        expect(after[0]!.pid).toBe(rows[0]!.pid)
        expect(after[1]!.pid).not.toBe(rows[1]!.pid)
        expect(after[1]!.status).toBe("online")
      })
    )
  )

  it.live("delete stops and removes rows; ids are never reused", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([{ name: "temp", script: "sleep", args: ["300"] }])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect(yield* pm.delete("temp")).toEqual([row!.id])
        expect(isAlive(row!.pid!)).toBe(false)
        expect(yield* pm.list()).toEqual([])
        const [again] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect(again!.id).toBe(row!.id + 1)
      })
    )
  )
})
