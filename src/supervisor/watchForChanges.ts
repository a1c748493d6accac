/**
 * `watch` (DESIGN §4): restart when files change under the watched paths, debounced, never
 * descending into `node_modules`, `.git`, pmfx's own logs folder or the `ignore_watch` patterns.
 * chokidar checks the ignores while it walks, so ignored trees cost no inotify watches.
 */
import { watch } from "chokidar"
import { Effect, type Scope } from "effect"
import * as path from "node:path"
import type { AppDefinition } from "../domain/AppDefinition"
import { makeIgnoreMatcher } from "./globMatcher"

const DEBOUNCE_MS = 300
const ALWAYS_IGNORED = ["node_modules", ".git"]

export const watchForChanges = (
  app: Pick<AppDefinition, "cwd" | "watch_paths" | "ignore_watch">,
  home: string,
  onChange: () => void
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const logsDir = path.join(home, "logs")
    const ignoredPattern = makeIgnoreMatcher(app.cwd, [...ALWAYS_IGNORED, ...app.ignore_watch])
    const ignored = (file: string) => file === logsDir || file.startsWith(logsDir + path.sep) || ignoredPattern(file)
    let timer: NodeJS.Timeout | undefined
    const watcher = yield* Effect.acquireRelease(
      Effect.async<ReturnType<typeof watch>>((resume) => {
        const w = watch([...app.watch_paths], { ignored, ignoreInitial: true, persistent: true })
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
