/**
 * What the engine must remember to come back after a restart of its host (DESIGN §3): every app's
 * definition and starting environment, every row's id, port and restart count, the state the user
 * last asked for (`desired`), and the pid last seen (to find orphans). The daemon stores it in
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
  pid_start_time: Schema.NullOr(Schema.Number)
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
