/**
 * Where the apps' output goes (docs/architecture.md §7): into their log files — all of them in the
 * daemon, none or only the ones an app names in the container runtime (docs/containers.md) — and,
 * in the runtime, onto the process's own stdout and stderr (`ConsoleEcho`).
 */
import { Context, Layer } from "effect"

export interface LogOutputSettings {
  /**
   * `all`: every app's log files (the daemon). `named`: only for an app that names `out_file`,
   * `error_file` or `log_file` (then all of its files, as the daemon writes them). `none`: no files.
   */
  readonly files: "all" | "named" | "none"
  /** Each line also on this process's stdout (the app's stdout) or stderr; null: not echoed. */
  readonly echo: { readonly json: boolean } | null
}

export class LogOutput extends Context.Tag("pmfx/LogOutput")<LogOutput, LogOutputSettings>() {
  /** The daemon's: every app's files, nothing echoed. */
  static readonly files: Layer.Layer<LogOutput> = Layer.succeed(LogOutput, { files: "all", echo: null })
  static readonly layer = (settings: LogOutputSettings): Layer.Layer<LogOutput> => Layer.succeed(LogOutput, settings)
}

/** Whether `app`'s lines go to its log files under `settings`. */
export const writesFiles = (
  settings: LogOutputSettings,
  app: { readonly out_file: string | null; readonly error_file: string | null; readonly log_file: string | null }
): boolean =>
  settings.files === "all" ||
  (settings.files === "named" && (app.out_file !== null || app.error_file !== null || app.log_file !== null))
