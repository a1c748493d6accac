/**
 * What the engine must remember to come back after a restart of its host (docs/architecture.md §5): every app's
 * definition and starting environment, every row's id, port and restart count, the state the user
 * last asked for (`desired`), and the process last seen (its pid, start time and FIFOs: the next
 * daemon adopts it, docs/decisions.md "Apps outlive the daemon"). The daemon stores it in
 * state.json.
 */
import { Schema } from "effect"
import { AppDefinition } from "../domain/AppDefinition"

export const Desired = Schema.Literal("running", "stopped")
export type Desired = typeof Desired.Type

export const RowSnapshot = Schema.Struct({
  id: Schema.Int,
  instance: Schema.Int,
  port: Schema.NullOr(Schema.Int),
  restarts: Schema.Int,
  desired: Desired,
  /** The process last seen for the row, with its start time (/proc/<pid>/stat field 22). */
  pid: Schema.NullOr(Schema.Int),
  pid_start_time: Schema.NullOr(Schema.Number),
  /** When that process started (epoch ms), so an adopting daemon keeps its uptime. */
  started_at: Schema.optional(Schema.NullOr(Schema.Number)),
  /** Its stdout/stderr FIFO pair in PMFX_HOME/pipes (absent in files of older versions). */
  pipes: Schema.optional(Schema.NullOr(Schema.String))
})
export type RowSnapshot = typeof RowSnapshot.Type

export const AppSnapshot = Schema.Struct({
  definition: AppDefinition,
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  rows: Schema.Array(RowSnapshot)
})
export type AppSnapshot = typeof AppSnapshot.Type

export const EngineSnapshot = Schema.Struct({
  next_id: Schema.Int,
  apps: Schema.Array(AppSnapshot)
})
export type EngineSnapshot = typeof EngineSnapshot.Type
