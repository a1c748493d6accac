/**
 * What happens after a process exits on its own, now that its cleanup runs after the replacement's
 * spawn (docs/decisions.md, "The spawn path, another pass"): the pid file names the live process,
 * and a row that settles leaves neither its pid file nor its group's leftovers behind.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { liveGroupMembers } from "../../src/monitor/procfs"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, isAlive, PATH_ENV, withEngine, withTempDir } from "../support/engine"

const readPid = (file: string): number | null => {
  try {
    return Number(fs.readFileSync(file, "utf8").trim())
  } catch {
    return null
  }
}

describe("after a process exits on its own", () => {
  it.live("each replacement's pid is in the pid file, never the crashed one's", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const pidFile = path.join(dir, "crasher.pid")
          const apps = yield* definitions([
            {
              name: "crasher",
              script: fixture("crash-after.js"),
              env: { CRASH_AFTER_MS: "200" },
              min_uptime: "100ms",
              pid_file: pidFile
            }
          ])
          const [first] = yield* pm.create(apps, { baseEnv: PATH_ENV })
          expect(readPid(pidFile)).toBe(first!.pid)
          yield* eventually(
            Effect.map(pm.get("crasher"), (d) => d.restarts >= 3 && d.status === "online"),
            "three restarts"
          )
          // The pid file follows the live process (polled: the row's pid is set just before the file is).
          yield* eventually(
            Effect.map(pm.get("crasher"), (d) => d.pid !== null && readPid(pidFile) === d.pid),
            "the pid file names the running replacement"
          )
          expect(readPid(pidFile)).not.toBe(first!.pid)
        })
      )
    )
  )

  it.live("a row that settles after its last exit loses its pid file, and its group's leftovers are killed", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const pidFile = path.join(dir, "leaver.pid")
          // The shell leaves a sleep behind in its process group and exits non-zero.
          const apps = yield* definitions([
            {
              name: "leaver",
              script: "/bin/sh",
              args: ["-c", "sleep 60 & sleep 0.3; exit 3"],
              autorestart: false,
              pid_file: pidFile
            }
          ])
          const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
          const pgid = row!.pid!
          expect(readPid(pidFile)).toBe(pgid)
          yield* eventually(
            Effect.map(pm.get("leaver"), (d) => d.status === "errored"),
            "errored after its exit"
          )
          yield* eventually(
            Effect.sync(() => !fs.existsSync(pidFile)),
            "the pid file removed"
          )
          yield* eventually(
            Effect.map(liveGroupMembers(pgid), (members) => members.length === 0),
            "no member of its group left"
          )
          expect(isAlive(pgid)).toBe(false)
        })
      )
    )
  )
})
