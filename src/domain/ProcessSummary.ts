/** One row of `GET /api/processes` (docs/api.md §3 plus `instance` and `namespace`). */
import { Schema } from "effect"
import { ProcessStatus } from "./ProcessStatus"

/** `none` when the app has no health check; `unknown` until its first check has run. */
export const HealthStatus = Schema.Literal("healthy", "unhealthy", "unknown", "none")
export type HealthStatus = typeof HealthStatus.Type

export const ProcessSummary = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  namespace: Schema.String,
  instance: Schema.Int,
  status: ProcessStatus,
  /** Operating-system pid; null while no process runs. */
  pid: Schema.NullOr(Schema.Int),
  /**
   * The row's own port as a string: its `port` setting's, else the `PORT` of its `env` (a whole
   * number 1-65535), as an app that reads PORT itself listens there; null when it has neither.
   */
  port: Schema.NullOr(Schema.String),
  /** Percent of one core, for the row's whole process tree. */
  cpu_usage: Schema.Number,
  /** Summed resident memory of the row's process tree, in bytes. */
  memory_usage: Schema.Int,
  /** `<h>h <m>m <s>s` since the current process started; `0h 0m 0s` while none runs. */
  uptime: Schema.String,
  restarts: Schema.Int,
  health_status: HealthStatus,
  /**
   * The ecosystem file the app was defined from (absolute path), or null for the command line.
   * Optional, so a client reads a daemon from before the field.
   */
  config_file: Schema.optional(Schema.NullOr(Schema.String))
})
export type ProcessSummary = typeof ProcessSummary.Type
