/** `GET /api/processes/{id}/metrics` (docs/api.md): one row's whole process tree. */
import { Schema } from "effect"

export const ProcessMetrics = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  instance: Schema.Int,
  pid: Schema.NullOr(Schema.Int),
  /** Percent of one core. */
  cpu_usage: Schema.Number,
  /** Bytes, summed over the process tree (from /proc/<pid>/status). */
  memory: Schema.Struct({ rss: Schema.Int, vms: Schema.Int, data: Schema.Int, swap: Schema.Int, shared: Schema.Int }),
  uptime_ms: Schema.Int,
  uptime: Schema.String,
  restarts: Schema.Int,
  /** Abnormal exits: a non-zero code or a signal nobody asked for. */
  errors: Schema.Int,
  /** The last 60 samples, oldest first. */
  history: Schema.Array(Schema.Struct({ timestamp: Schema.String, cpu_usage: Schema.Number, rss: Schema.Int }))
})
export type ProcessMetrics = typeof ProcessMetrics.Type
