/**
 * `state.json` (docs/architecture.md §5): the engine's snapshot (definitions, rows, desired state, last pids),
 * whether the apps were stopped by `pmfx kill`, the `pmfx web` listener and the daemon-wide
 * webhooks and alert thresholds (docs/architecture.md §9). Written atomically (`atomicWrite.ts`: temp file,
 * every byte, fsync, size check, rename, fsync of the folder), mode 0600 — it holds the apps'
 * environments. A file that cannot be read back is moved aside, never deleted.
 */
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import { AlertRules, Webhook } from "../domain/AppDefinition"
import { EngineSnapshot, RowSnapshot } from "../supervisor/EngineSnapshot"
import { type AtomicWriteError, writeFileAtomically } from "./atomicWrite"

/** The TCP listener's settings (`pmfx web`), kept so the next daemon opens it again. */
export const WebSettings = Schema.Struct({
  host: Schema.String,
  port: Schema.Int,
  apiKey: Schema.optional(Schema.String),
  readOnlyApiKey: Schema.optional(Schema.String),
  corsOrigins: Schema.Array(Schema.String),
  verbose: Schema.Boolean,
  /** `--metrics-public`: `GET /metrics` answers without a key (docs/metrics.md). Absent: false. */
  metricsPublic: Schema.optional(Schema.Boolean)
})
export type WebSettings = typeof WebSettings.Type

export const StateFileContent = Schema.Struct({
  version: Schema.Literal(1),
  saved_at: Schema.String,
  /** Set by `pmfx kill`: the next daemon keeps every app stopped until `pmfx resurrect`. */
  killed: Schema.Boolean,
  engine: EngineSnapshot,
  /** Absent when no listener is open (`pmfx web` never run, or `pmfx web --stop`). */
  web: Schema.optional(WebSettings),
  /** The daemon's webhooks (ecosystem files' top-level `webhooks`, merged by url). Absent: none (and in files older than this field). */
  webhooks: Schema.optional(Schema.Array(Webhook)),
  /** The global alert thresholds (the last started file's top-level `alerts`). Absent: none. */
  alerts: Schema.optional(AlertRules)
})
export type StateFileContent = typeof StateFileContent.Type

export const emptyState: StateFileContent = {
  version: 1,
  saved_at: new Date(0).toISOString(),
  killed: false,
  engine: { next_id: 0, apps: [] }
}

export type LoadedState =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Loaded"; readonly state: StateFileContent }
  | { readonly _tag: "Corrupt"; readonly movedTo: string; readonly reason: string }

/** Reads the state; a corrupt file is renamed to `state.json.corrupt-<time>` and reported. */
export const readStateFile = (file: string): Effect.Effect<LoadedState> =>
  Effect.sync(() => {
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { _tag: "Missing" } as const
      return moveAside(file, `cannot be read: ${(error as Error).message}`)
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      return moveAside(file, `is not valid JSON: ${(error as Error).message}`)
    }
    const decoded = Schema.decodeUnknownEither(StateFileContent)(json)
    if (Either.isLeft(decoded))
      return moveAside(file, `does not have the expected shape: ${decoded.left.message.split("\n")[0]}`)
    return { _tag: "Loaded", state: decoded.right } as const
  })

const moveAside = (file: string, reason: string): LoadedState => {
  const movedTo = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`
  fs.renameSync(file, movedTo)
  return { _tag: "Corrupt", movedTo, reason }
}

/**
 * How a save encodes the state: as `StateFileContent`, except that each app's definition and
 * environment are written as they are. Both entered the daemon decoded (an API body, a state file),
 * are never changed in place, and an `AppDefinition` encodes to itself (its only transformations
 * are defaults applied when decoding; test/daemon/stateFile.test.ts checks it), so encoding them
 * again at every save checked nothing new — and with 60 apps it was ~90 % of a save's CPU
 * (~20 ms of the interpreted daemon), paid several times in a burst of spawns (docs/decisions.md,
 * "Starting 50 apps, second pass"). Rows and the daemon's settings change at run time and are
 * still encoded; a file is still read back through the whole `StateFileContent`.
 */
const StateFileAsSaved = Schema.Struct({
  ...StateFileContent.fields,
  engine: Schema.Struct({
    next_id: Schema.Int,
    apps: Schema.Array(
      Schema.Struct({ definition: Schema.Unknown, env: Schema.Unknown, rows: Schema.Array(RowSnapshot) })
    )
  })
})

/** The text of state.json for `state` (what `writeStateFile` writes). */
export const stateFileText = (state: StateFileContent): string =>
  JSON.stringify(Schema.encodeSync(StateFileAsSaved)(state), null, 2)

/**
 * Writes the state atomically: a crash or a full disk leaves either the old file or the new one,
 * never half of one, and no temporary file.
 */
export const writeStateFile = (file: string, state: StateFileContent): Effect.Effect<void, AtomicWriteError> =>
  Effect.suspend(() =>
    writeFileAtomically(file, Buffer.from(stateFileText(state)), {
      mode: 0o600,
      durable: true
    })
  )
