/**
 * `watch_options`: PM2 hands this object to chokidar as it is. pmfx's watcher is chokidar 4 too
 * (supervisor/watchForChanges.ts), so the options that change *what* is watched or *how* are
 * honoured — `usePolling`, `interval`, `binaryInterval`, `followSymlinks`, `ignored` (added to
 * `ignore_watch`), `awaitWriteFinish`, `depth`, `cwd` (the folder relative watch paths and ignore
 * patterns start from) — and every other key is dropped with a warning that says why
 * (docs/configuration.md, `watch_options`).
 */
import { Either, Schema } from "effect"
import { describe, fromUnknown } from "../domain/codec"
import { parseDuration } from "../domain/Duration"
import { closestKey } from "./closestKey"
import { joinPath } from "./fieldPath"
import { isRecord } from "./mergeSettings"
import { Bool, Integer, NonEmptyText } from "./settingCodecs"
import { DurationMs } from "../domain/Duration"

/** chokidar's own defaults for `awaitWriteFinish: true`. */
export const AWAIT_WRITE_FINISH_DEFAULTS = { stabilityThreshold: 2000, pollInterval: 100 } as const

export interface AwaitWriteFinish {
  readonly stabilityThreshold: number
  readonly pollInterval: number
}

/** `awaitWriteFinish`: true/false, or `{stabilityThreshold, pollInterval}` (durations; chokidar's defaults fill the gaps). */
const AwaitWriteFinishSetting = fromUnknown(
  Schema.Union(Schema.Boolean, Schema.Struct({ stabilityThreshold: Schema.Number, pollInterval: Schema.Number })),
  (u): Either.Either<boolean | AwaitWriteFinish, string> => {
    if (typeof u === "boolean") return Either.right(u)
    if (!isRecord(u))
      return Either.left(`expected true, false or {stabilityThreshold, pollInterval}, got ${describe(u)}`)
    const unknown = Object.keys(u).filter((key) => key !== "stabilityThreshold" && key !== "pollInterval")
    if (unknown.length > 0) return Either.left(`unknown key "${unknown[0]}": only stabilityThreshold and pollInterval`)
    const read = (key: keyof AwaitWriteFinish) =>
      u[key] === undefined
        ? Either.right(AWAIT_WRITE_FINISH_DEFAULTS[key])
        : Either.mapLeft(parseDuration(u[key]), (message) => `${key}: ${message}`)
    return Either.all({ stabilityThreshold: read("stabilityThreshold"), pollInterval: read("pollInterval") })
  },
  { identifier: "AwaitWriteFinish", description: "true, false or {stabilityThreshold, pollInterval}" }
)

/** `ignored`: glob strings, like `ignore_watch` (one string is a list of one). */
const IgnoredSetting = fromUnknown(
  Schema.Array(Schema.String),
  (u) =>
    typeof u === "string"
      ? Either.right([u])
      : Array.isArray(u) && u.every((p) => typeof p === "string")
        ? Either.right(u as Array<string>)
        : Either.left(`expected a glob or an array of globs, got ${describe(u)}`),
  { identifier: "IgnoredGlobs", description: "a glob or an array of globs" }
)

const opt = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(schema, { exact: true })

/** The honoured keys, as a user writes them. */
export const WatchOptionsSettings = Schema.Struct({
  usePolling: opt(Bool),
  interval: opt(DurationMs),
  binaryInterval: opt(DurationMs),
  followSymlinks: opt(Bool),
  ignored: opt(IgnoredSetting),
  awaitWriteFinish: opt(AwaitWriteFinishSetting),
  depth: opt(Integer(0)),
  cwd: opt(NonEmptyText)
}).annotations({
  message: (issue) => `expected an object of watcher options like {"usePolling": true}, got ${describe(issue.actual)}`
})
export type WatchOptionsSettings = typeof WatchOptionsSettings.Type

const HONOURED = Object.keys(WatchOptionsSettings.fields)

/** chokidar options pmfx sets itself or cannot honour, with why (shown in the warning). */
const DROPPED: Readonly<Record<string, string>> = {
  persistent: "pmfx keeps the watcher open as long as the app is watched",
  ignoreInitial: "pmfx never restarts an app for the files that exist when watching starts",
  ignorePermissionErrors: "pmfx always keeps watching past files it cannot read",
  atomic: "pmfx debounces changes itself (300 ms), which also covers editors' atomic writes",
  alwaysStat: "pmfx does not use file stats",
  useFsEvents: "FSEvents is macOS-only; pmfx runs on Linux",
  disableGlobbing: "pmfx's watch paths are never globs",
  awaitWriteFinishTimeout: "not a chokidar 4 option"
}

/**
 * The honoured part of a written `watch_options` (to decode), with a warning for each other key.
 * A value that is not an object is returned as it is, for the decoder to report. An `ignored` that
 * is a regular expression or a function (a JavaScript file) cannot be saved with the app: it is
 * dropped with a warning saying to write globs.
 */
export const honouredWatchOptions = (value: unknown, at: string, warnings: Array<string>): unknown => {
  if (!isRecord(value)) return value
  const kept: Record<string, unknown> = {}
  for (const [key, option] of Object.entries(value)) {
    const field = joinPath(at, key)
    if (
      key === "ignored" &&
      (option instanceof RegExp ||
        typeof option === "function" ||
        (Array.isArray(option) && option.some((p) => typeof p !== "string")))
    ) {
      const strings = Array.isArray(option) ? option.filter((p): p is string => typeof p === "string") : []
      warnings.push(
        `${field}: a regular expression or function is ignored (it cannot be saved with the app); write glob strings, as in ignore_watch`
      )
      if (strings.length > 0) kept[key] = strings
    } else if (HONOURED.includes(key)) kept[key] = option
    else {
      const why = DROPPED[key]
      const closest = why === undefined ? closestKey(key, HONOURED) : undefined
      warnings.push(
        `${field} is ignored: ${why ?? `not a watcher option pmfx passes on${closest === undefined ? "" : ` (did you mean "${closest}"?)`}; honoured: ${HONOURED.join(", ")}`}`
      )
    }
  }
  return kept
}
