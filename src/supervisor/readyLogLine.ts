/**
 * `ready_log_line` (docs/configuration.md): watches a row's output for the line that says the app
 * is ready, once per run. The log path asks `watching()` once per chunk, so lines are only decoded
 * for it until the line has been seen; then the row's output is bytes again.
 */
import { Either } from "effect"
import { compileGrep } from "../logs/grepPattern"

export interface ReadyLineWatch {
  /** Whether lines should be shown to `see` (the line was not seen yet in this run). */
  readonly watching: () => boolean
  readonly see: (message: string) => void
  /** A new process: its own output must say it is ready. */
  readonly rearm: () => void
}

const never: ReadyLineWatch = { watching: () => false, see: () => {}, rearm: () => {} }

/** `onReady` runs once per run, when a line matches `pattern` (validated when the app was loaded). */
export const watchReadyLine = (pattern: string | null, onReady: () => void): ReadyLineWatch => {
  if (pattern === null) return never
  const compiled = compileGrep(pattern, "ready_log_line")
  // Refused at load time; a definition from elsewhere that slips through simply never matches.
  if (Either.isLeft(compiled)) return never
  let armed = false
  return {
    watching: () => armed,
    see: (message) => {
      if (armed && compiled.right.test(message)) {
        armed = false
        onReady()
      }
    },
    rearm: () => {
      armed = true
    }
  }
}
