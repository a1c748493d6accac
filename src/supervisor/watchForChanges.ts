/**
 * `watch` (docs/architecture.md §4): restart when files change under the watched paths, debounced, never
 * descending into `node_modules`, `.git`, pmfx's own logs folder, the `ignore_watch` patterns or
 * `watch_options.ignored`; the other honoured `watch_options` (polling, depth…) go to chokidar.
 * chokidar checks the ignores while it walks, so ignored trees cost no inotify watches.
 */
import type { FSWatcher } from "chokidar"
import { Effect, type Scope } from "effect"
import * as path from "node:path"
import type { AppDefinition } from "../domain/AppDefinition"
import { instanceFiles } from "../domain/logPaths"

const DEBOUNCE_MS = 300
const ALWAYS_IGNORED = ["node_modules", ".git"]

export const watchForChanges = (
  app: Pick<
    AppDefinition,
    | "cwd"
    | "watch_paths"
    | "ignore_watch"
    | "watch_options"
    | "name"
    | "instances"
    | "merge_logs"
    | "out_file"
    | "error_file"
    | "log_file"
    | "pid_file"
  >,
  home: string,
  onChange: () => void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    // chokidar and picomatch are loaded by the first app that watches: a daemon without one never
    // holds them (docs/benchmarks.md, "The daemon's memory, third pass").
    const [{ watch }, { makeIgnoreMatcher }] = yield* Effect.promise(() =>
      Promise.all([import("chokidar"), import("./globMatcher")])
    )
    const { cwd: watchCwd, ignored: moreIgnored, ...chokidarOptions } = app.watch_options
    const ignoredPattern = makeIgnoreMatcher(watchCwd ?? app.cwd, [
      ...ALWAYS_IGNORED,
      ...app.ignore_watch,
      ...(moreIgnored ?? [])
    ])
    // pmfx's own files change all the time (logs, pid files, state): watching them would restart
    // the app in a loop. The app's log and pid files may live outside home, so they are listed too.
    const ownFiles = new Set<string>()
    for (let instance = 0; instance < app.instances; instance++) {
      const files = instanceFiles(app, instance, home)
      for (const file of [files.out_file, files.error_file, files.log_file, files.pid_file])
        if (file !== null) ownFiles.add(file)
    }
    const homeEntries = [
      "logs",
      "pids",
      "pipes",
      "state.json",
      ".state.json",
      "daemon.log",
      "daemon.pid",
      "daemon.owner",
      "pmfx.sock"
    ].map((entry) => path.join(home, entry))
    const isOwn = (file: string) =>
      homeEntries.some(
        (entry) => file === entry || file.startsWith(entry + path.sep) || file.startsWith(`${entry}.`)
      ) || [...ownFiles].some((own) => file === own || file.startsWith(`${own}.`))
    const ignored = (file: string) => isOwn(file) || ignoredPattern(file)
    let timer: NodeJS.Timeout | undefined
    const watcher = yield* Effect.acquireRelease(
      Effect.async<FSWatcher>((resume) => {
        // The user's watch_options first: ignored, ignoreInitial and persistent are pmfx's to set.
        const w = watch([...app.watch_paths], { ...chokidarOptions, ignored, ignoreInitial: true, persistent: true })
        w.on("all", () => {
          clearTimeout(timer)
          timer = setTimeout(onChange, DEBOUNCE_MS)
        })
        w.once("ready", () => resume(Effect.succeed(w)))
        w.on("error", () => {
          // A folder that vanished or a permission problem must not take the supervisor down.
        })
      }),
      (w) =>
        Effect.promise(() => {
          clearTimeout(timer)
          return w.close()
        })
    )
    return void watcher
  })
