import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, recordEvents, withEngine, withTempDir } from "../support/engine"
import { eventsOf, node } from "./helpers"

const restartsOf = (pm: ProcessManager, name: string) => Effect.map(pm.get(name), (d) => d.restarts)

/** Whether the app is online with exactly `restarts` restarts. */
const onlineAfter = (pm: ProcessManager, name: string, restarts: number) =>
  Effect.map(pm.get(name), (d) => d.status === "online" && d.restarts === restarts)

describe("watch", () => {
  it.live("a changed file under cwd restarts the app; node_modules and ignore_watch patterns do not", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const events = yield* recordEvents()
          fs.mkdirSync(path.join(dir, "node_modules"))
          fs.writeFileSync(path.join(dir, "index.txt"), "v1")
          // `canary` watches the same folder without ignore_watch: its restarts show when the watchers
          // have seen (and debounced) a change, which lets the test prove that `watched` ignored one.
          const apps = yield* definitions([
            {
              name: "watched",
              script: "sleep",
              args: ["300"],
              cwd: dir,
              watch: true,
              ignore_watch: ["*.log"],
              min_uptime: "200ms"
            },
            { name: "canary", script: "sleep", args: ["300"], cwd: dir, watch: true, min_uptime: "200ms" }
          ])
          const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.map(pm.list(), (rows) => rows.every((r) => r.status === "online")),
            "both online"
          )

          // A real change restarts both.
          fs.writeFileSync(path.join(dir, "index.txt"), "v2")
          yield* eventually(
            Effect.zipWith(onlineAfter(pm, "watched", 1), onlineAfter(pm, "canary", 1), (a, b) => a && b),
            "both restarted once by the change"
          )
          const first = yield* pm.get("watched")
          expect(first.pid).not.toBe(row!.pid)
          expect(eventsOf(events, "ProcessRestart", "watched").map((e) => [e.reason, e.restarts])).toEqual([
            ["watch", 1]
          ])

          // Ignored writes: under node_modules (always) and *.log (ignore_watch of `watched` only).
          fs.mkdirSync(path.join(dir, "node_modules", "dep"))
          fs.writeFileSync(path.join(dir, "node_modules", "dep", "index.js"), "module.exports = 1")
          fs.writeFileSync(path.join(dir, "app.log"), "a log line\n")
          yield* eventually(onlineAfter(pm, "canary", 2), "the canary restarted by the .log file")

          // Then a real change: `watched` goes up by exactly one.
          fs.writeFileSync(path.join(dir, "index.txt"), "v3")
          yield* eventually(onlineAfter(pm, "canary", 3), "the canary restarted by the real change")
          yield* eventually(
            Effect.map(restartsOf(pm, "watched"), (n) => n >= 2),
            "watched restarted by the real change"
          )
          yield* eventually(
            Effect.map(pm.get("watched"), (d) => d.status === "online"),
            "watched online again"
          )
          expect(yield* restartsOf(pm, "watched")).toBe(2)
          expect(eventsOf(events, "ProcessRestart", "watched").map((e) => e.reason)).toEqual(["watch", "watch"])
        })
      )
    )
  )

  it.live("an app whose out_file lies in its watched folder is not restarted by its own log lines", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          // It logs a numbered tick every 500 ms, longer than the watch debounce (300 ms): had its
          // watcher reacted to its own out_file, a restart would fall between two ticks.
          const apps = yield* definitions([
            {
              name: "self-logger",
              script: node,
              args: ["-e", "let n = 0; console.log('started'); setInterval(() => console.log('tick ' + ++n), 500)"],
              cwd: dir,
              watch: true,
              out_file: path.join(dir, "out.txt"),
              error_file: path.join(dir, "err.txt")
            }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          const out = () =>
            fs.existsSync(path.join(dir, "out.txt")) ? fs.readFileSync(path.join(dir, "out.txt"), "utf8") : ""
          yield* eventually(
            Effect.sync(() => out().includes("tick 4")),
            "four ticks logged",
            30_000
          )
          expect(out().match(/started/g)).toHaveLength(1)
          expect(yield* onlineAfter(pm, "self-logger", 0)).toBe(true)
          fs.writeFileSync(path.join(dir, "index.txt"), "v2")
          yield* eventually(onlineAfter(pm, "self-logger", 1), "online after exactly one restart", 30_000)
        })
      )
    )
  )

  it.live("an app watching the folder that holds PMFX_HOME is not restarted by pmfx's own files", () =>
    withEngine((home) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        // Its pid file (<home>/pids) is written at each start and removed at each stop.
        const apps = yield* definitions([
          { name: "home-watcher", script: "sleep", args: ["300"], cwd: home, watch: true }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(onlineAfter(pm, "home-watcher", 0), "online without a restart", 30_000)
        fs.writeFileSync(path.join(home, "index.txt"), "v2")
        yield* eventually(onlineAfter(pm, "home-watcher", 1), "online after exactly one restart", 30_000)
      })
    )
  )

  it.live("without watch, a changed file restarts nothing", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const apps = yield* definitions([
            { name: "still", script: "sleep", args: ["300"], cwd: dir, min_uptime: "200ms" },
            { name: "canary", script: "sleep", args: ["300"], cwd: dir, watch: true, min_uptime: "200ms" }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.map(pm.list(), (rows) => rows.every((r) => r.status === "online")),
            "both online"
          )
          fs.writeFileSync(path.join(dir, "changed.txt"), "x")
          yield* eventually(onlineAfter(pm, "canary", 1), "the canary restarted")
          expect(yield* restartsOf(pm, "still")).toBe(0)
        })
      )
    )
  )
})
