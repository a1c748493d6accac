/** PM2 settings on real processes (docs/configuration.md §3.11). */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, isAlive, PATH_ENV, recordEvents, withEngine, withTempDir } from "../support/engine"
import { eventsOf, node } from "./helpers"

/** A script that writes its Node flags and instance variables to <dir>/<PMFX_INSTANCE_ID>.json, then stays up. */
const REPORTER = `
const fs = require("node:fs")
const out = require("node:path").join(__dirname, process.env.PMFX_INSTANCE_ID + ".json")
fs.writeFileSync(out + ".tmp", JSON.stringify({ execArgv: process.execArgv, env: process.env }))
fs.renameSync(out + ".tmp", out)
setInterval(() => {}, 1000)
`

describe("PM2 settings on real processes", () => {
  it.live("node_args reach node before the script; instance_var and increment_var name the instance variables", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          fs.writeFileSync(path.join(dir, "reporter.js"), REPORTER)
          const apps = yield* definitions([
            {
              name: "flags",
              script: path.join(dir, "reporter.js"),
              instances: 2,
              node_args: "--max-old-space-size=96 --no-warnings",
              instance_var: "INSTANCE_ID",
              increment_var: "WORKER_PORT",
              env: { WORKER_PORT: "7000" }
            }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          const read = (i: number) => path.join(dir, `${i}.json`)
          yield* eventually(
            Effect.sync(() => fs.existsSync(read(0)) && fs.existsSync(read(1))),
            "both instances reported"
          )
          const reports = [0, 1].map(
            (i) =>
              JSON.parse(fs.readFileSync(read(i), "utf8")) as { execArgv: Array<string>; env: Record<string, string> }
          )
          for (const [i, report] of reports.entries()) {
            expect(report.execArgv).toEqual(["--max-old-space-size=96", "--no-warnings"])
            expect(report.env).toMatchObject({
              INSTANCE_ID: String(i),
              PMFX_INSTANCE_ID: String(i),
              WORKER_PORT: String(7000 + i)
            })
            expect(report.env.NODE_APP_INSTANCE).toBeUndefined()
          }
        })
      )
    )
  )

  it.live("stop_exit_codes: an exit with a listed code settles stopped; another code is restarted", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "done", script: node, args: ["-e", "setTimeout(() => process.exit(3), 200)"], stop_exit_codes: [3] },
          {
            name: "other",
            script: node,
            args: ["-e", "setTimeout(() => process.exit(4), 200)"],
            stop_exit_codes: 3,
            max_restarts: 100
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("done"), (d) => d.status === "stopped"),
          "done stopped"
        )
        yield* eventually(
          Effect.map(pm.get("other"), (d) => d.restarts >= 2),
          "other restarted"
        )
        const done = yield* pm.get("done")
        expect([done.status, done.pid, done.restarts]).toEqual(["stopped", null, 0])
      })
    )
  )

  it.live(
    "cron_restart every second restarts the process (reason cron, a new pid); the detail shows the next run; stop ends it",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const events = yield* recordEvents()
          // The canary keeps the same schedule: its restarts show scheduled times passing after the stop.
          const apps = yield* definitions([
            { name: "nightly", script: "sleep", args: ["300"], cron_restart: "* * * * * *" },
            { name: "canary", script: "sleep", args: ["300"], cron_restart: "* * * * * *" }
          ])
          const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
          const first = row!.pid!
          const detail = yield* pm.get("nightly")
          expect(detail.cron_restart!.schedule).toBe("* * * * * *")
          const next = Date.parse(detail.cron_restart!.next_run!)
          expect(next).toBeGreaterThan(Date.now() - 1000)
          expect(next).toBeLessThanOrEqual(Date.now() + 1000)
          expect(new Date(next).getMilliseconds()).toBe(0)
          yield* eventually(
            Effect.map(pm.get("nightly"), (d) => d.restarts >= 2 && d.status === "online" && d.pid !== first),
            "two cron restarts"
          )
          expect(isAlive(first)).toBe(false)
          const restarts = eventsOf(events, "ProcessRestart", "nightly")
          expect(restarts.every((e) => e.reason === "cron")).toBe(true)
          // Stopped, the schedule restarts nothing.
          yield* pm.stop("nightly")
          const stopped = yield* pm.get("nightly")
          yield* eventually(
            Effect.sync(() => eventsOf(events, "ProcessStatus", "nightly").some((e) => e.status === "stopped")),
            "stopped"
          )
          const count = eventsOf(events, "ProcessRestart", "nightly").length
          const canary = eventsOf(events, "ProcessRestart", "canary").length
          yield* eventually(
            Effect.sync(() => eventsOf(events, "ProcessRestart", "canary").length >= canary + 2),
            "two more scheduled times"
          )
          expect(eventsOf(events, "ProcessRestart", "nightly")).toHaveLength(count)
          expect(yield* pm.get("nightly")).toMatchObject({ status: "stopped", pid: null, restarts: stopped.restarts })
        })
      )
  )

  it.live("autostart: false registers the app stopped; start runs it", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "manual", script: "sleep", args: ["300"], autostart: false },
          { name: "auto", script: "sleep", args: ["300"] }
        ])
        const created = yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect(created.map((r) => [r.name, r.status, r.pid === null])).toEqual([
          ["manual", "stopped", true],
          ["auto", "online", false]
        ])
        const [started] = yield* pm.start("manual")
        expect(started!.status).toBe("online")
        expect(isAlive(started!.pid!)).toBe(true)
      })
    )
  )
})
