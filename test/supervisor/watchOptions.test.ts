/**
 * `watch_options` reaches the watcher: with `usePolling` a change restarts the app though the
 * folder has no inotify watch (polling it is), and `ignored` adds to the ignore patterns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, withEngine, withTempDir } from "../support/engine"

/** Whether this process holds an inotify watch on `dir` (its inode, in /proc/self/fdinfo). */
const hasInotifyWatch = (dir: string): boolean => {
  const inode = `ino:${fs.statSync(dir).ino.toString(16)} `
  for (const fd of fs.readdirSync("/proc/self/fdinfo")) {
    try {
      if (
        fs
          .readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
          .split("\n")
          .some((line) => line.startsWith("inotify wd:") && line.includes(inode))
      )
        return true
    } catch {
      // Closed meanwhile.
    }
  }
  return false
}

const onlineAfter = (pm: ProcessManager, name: string, restarts: number) =>
  Effect.map(pm.get(name), (d) => d.status === "online" && d.restarts === restarts)

describe("watch_options", () => {
  it.live("usePolling restarts on a change without inotify; ignored is added to ignore_watch", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const polled = path.join(dir, "polled")
          const plain = path.join(dir, "plain")
          for (const folder of [polled, plain]) {
            fs.mkdirSync(folder)
            fs.writeFileSync(path.join(folder, "index.txt"), "v1")
          }
          const polling = { usePolling: true, interval: 50, binaryInterval: 50 }
          // `canary` polls the same folder without `ignored`: its restart shows a change was seen.
          const apps = yield* definitions([
            {
              name: "polled",
              script: "sleep",
              args: ["300"],
              cwd: polled,
              watch: true,
              watch_options: { ...polling, ignored: ["*.tmp"] },
              min_uptime: "200ms"
            },
            {
              name: "canary",
              script: "sleep",
              args: ["300"],
              cwd: polled,
              watch: true,
              watch_options: polling,
              min_uptime: "200ms"
            },
            { name: "plain", script: "sleep", args: ["300"], cwd: plain, watch: true, min_uptime: "200ms" }
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.map(pm.list(), (rows) => rows.length === 3 && rows.every((r) => r.status === "online")),
            "all online"
          )

          // The inotify-based watcher watches its folder; the polling ones hold no watch on theirs.
          expect(hasInotifyWatch(plain)).toBe(true)
          expect(hasInotifyWatch(polled)).toBe(false)

          // An ignored file: only the canary restarts.
          fs.writeFileSync(path.join(polled, "scratch.tmp"), "x")
          yield* eventually(onlineAfter(pm, "canary", 1), "the canary restarted by scratch.tmp")
          // A real change: both restart, polled exactly once.
          fs.writeFileSync(path.join(polled, "index.txt"), "v2 with more bytes")
          yield* eventually(onlineAfter(pm, "canary", 2), "the canary restarted by index.txt")
          yield* eventually(onlineAfter(pm, "polled", 1), "polled restarted by index.txt")
          expect((yield* pm.get("plain")).restarts).toBe(0)
        })
      )
    )
  )
})
