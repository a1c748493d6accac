/** `GET /api/processes/{id}` (docs/api.md §3 plus `app_instances`). */
import { Schema } from "effect"
import { Dependency } from "./Dependency"
import { HealthStatus, ProcessSummary } from "./ProcessSummary"

export const ProcessDetail = Schema.Struct({
  ...ProcessSummary.fields,
  /** Ids of every row of the same app, lowest first. */
  app_instances: Schema.Array(Schema.Int),
  config: Schema.Struct({
    script: Schema.String,
    args: Schema.Array(Schema.String),
    /**
     * `"bash -c"` (or `"sh -c"`) when `script` is a command line run through that shell, else
     * null. Optional when decoding, so the CLI still reads a daemon from before the field.
     */
    shell: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    instances: Schema.Int,
    /** `cluster`: the instances are workers of one Node cluster primary (optional when decoding, as `shell`). */
    exec_mode: Schema.optionalWith(Schema.Literal("fork", "cluster"), { default: () => "fork" as const }),
    /** Bytes; null when no limit is set. */
    max_memory_restart: Schema.NullOr(Schema.Int),
    port: Schema.NullOr(Schema.String),
    env: Schema.Record({ key: Schema.String, value: Schema.String }),
    /** The working directory the app runs in (optional when decoding, as `shell`). */
    cwd: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    /**
     * The apps this one waits for before it starts, each with its condition, and the pattern of
     * the line that makes this app ready for `log_ready` (docs/configuration.md, depends_on).
     * Optional when decoding, as `shell`.
     */
    depends_on: Schema.optionalWith(Schema.Array(Dependency), { default: () => [] }),
    ready_log_line: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    /** The ecosystem file the app was defined from (absolute), or null (optional when decoding, as `shell`). */
    config_file: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    /** Restart when the process exits (optional when decoding, as `shell`). */
    autorestart: Schema.optionalWith(Schema.Boolean, { default: () => true }),
    /** Whether files are watched, the absolute paths watched and the ignore patterns (optional when decoding, as `shell`). */
    watch: Schema.optionalWith(
      Schema.Struct({
        enabled: Schema.Boolean,
        paths: Schema.Array(Schema.String),
        ignore: Schema.Array(Schema.String)
      }),
      {
        default: () => ({ enabled: false, paths: [], ignore: [] })
      }
    )
  }),
  /** While the row waits for its `depends_on` apps: what for (`db to be healthy`); else null. */
  waiting_for: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** With no check configured: `{enabled:false}` and every other field null. */
  health_check: Schema.Struct({
    enabled: Schema.Boolean,
    check_type: Schema.NullOr(Schema.Literal("http", "script")),
    url: Schema.NullOr(Schema.String),
    status: Schema.NullOr(HealthStatus),
    /** ISO 8601 UTC. */
    last_check: Schema.NullOr(Schema.String),
    /** Milliseconds the last check took. */
    response_time: Schema.NullOr(Schema.Int)
  }),
  logs: Schema.Struct({ out_file: Schema.String, error_file: Schema.String }),
  /** The `cron_restart` schedule and its next time (ISO 8601 UTC); null without a schedule. */
  cron_restart: Schema.NullOr(Schema.Struct({ schedule: Schema.String, next_run: Schema.NullOr(Schema.String) })),
  /**
   * How the row's last process ended (`signal` like "SIGTERM"); null while none has ended since the
   * row was created or the daemon started. Optional when decoding, so the CLI still reads an older daemon.
   */
  last_exit: Schema.optionalWith(
    Schema.NullOr(
      Schema.Struct({
        code: Schema.NullOr(Schema.Int),
        signal: Schema.NullOr(Schema.String),
        /** When it ended, ISO 8601 UTC (optional when decoding, for an older daemon). */
        at: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
      })
    ),
    {
      default: () => null
    }
  )
})
export type ProcessDetail = typeof ProcessDetail.Type
