/**
 * A fully resolved app definition: what the engine runs and what `pmfx show` prints. Every default
 * of docs/architecture.md §4 is applied, `${VAR}` substitutions are done, paths are absolute, durations are whole
 * milliseconds and sizes whole bytes. (What users *write* is decoded by `config/AppSettings.ts`.)
 */
import { Schema } from "effect"
import { DependencyEntry } from "./Dependency"

const NonNegativeInt = Schema.Int.pipe(Schema.nonNegative())
const Milliseconds = NonNegativeInt.annotations({ description: "milliseconds" })
const Bytes = NonNegativeInt.annotations({ description: "bytes" })

export const HealthCheckDefinition = Schema.Struct({
  enabled: Schema.Boolean,
  check_type: Schema.Literal("http", "script"),
  /** The checked URL (`http`). */
  url: Schema.NullOr(Schema.String),
  /** The check script, absolute (`script`). */
  script: Schema.NullOr(Schema.String),
  timeout: Milliseconds,
  interval: Milliseconds,
  retries: Schema.Int.pipe(Schema.positive())
})
export type HealthCheckDefinition = typeof HealthCheckDefinition.Type

/** Alert thresholds (docs/architecture.md §9); absent keys fall back to the ecosystem's, then the daemon's. */
export const AlertRules = Schema.Struct({
  memory: Schema.optional(Bytes),
  cpu_percent: Schema.optional(Schema.Number),
  cpu_duration: Schema.optional(Milliseconds),
  restart_loop: Schema.optional(Schema.Struct({ restarts: Schema.Int.pipe(Schema.positive()), window: Milliseconds }))
})
export type AlertRules = typeof AlertRules.Type

export const WebhookEvent = Schema.Literal(
  "process_crash",
  "high_memory",
  "cpu_threshold",
  "restart_loop",
  "health_check_failure"
)
export type WebhookEvent = typeof WebhookEvent.Type

export const Webhook = Schema.Struct({
  enabled: Schema.Boolean,
  url: Schema.String,
  events: Schema.Array(WebhookEvent)
})
export type Webhook = typeof Webhook.Type

/**
 * The watcher options of `watch_options` that pmfx honours (docs/configuration.md): only those the
 * user set, the others keep chokidar's defaults. `ignored` is added to `ignore_watch`; `cwd` is
 * absolute, the folder relative watch paths and ignore patterns start from.
 */
export const WatchOptions = Schema.Struct({
  usePolling: Schema.optional(Schema.Boolean),
  interval: Schema.optional(Milliseconds),
  binaryInterval: Schema.optional(Milliseconds),
  followSymlinks: Schema.optional(Schema.Boolean),
  ignored: Schema.optional(Schema.Array(Schema.String)),
  awaitWriteFinish: Schema.optional(Schema.Struct({ stabilityThreshold: Milliseconds, pollInterval: Milliseconds })),
  depth: Schema.optional(NonNegativeInt),
  cwd: Schema.optional(Schema.String)
})
export type WatchOptions = typeof WatchOptions.Type

export const AppDefinition = Schema.Struct({
  name: Schema.String,
  namespace: Schema.String,
  script: Schema.String,
  args: Schema.Array(Schema.String),
  /** Program that runs `script`; null lets the shebang or the file extension decide. */
  interpreter: Schema.NullOr(Schema.String),
  /**
   * The shell that runs `script` as a command line (`bash -c '<script>'`), or null for none: set
   * only for a `script` with a space that is no file (docs/configuration.md, `script`). Optional
   * when decoding, so a state file saved before the setting existed still loads.
   */
  shell: Schema.optionalWith(Schema.NullOr(Schema.Literal("bash", "sh")), { default: () => null }),
  cwd: Schema.String,
  instances: Schema.Int.pipe(Schema.positive()),
  /** `3000`, `3000-3003` or `auto:5000-5100`; null when the app takes no port. */
  port: Schema.NullOr(Schema.String),
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  env_file: Schema.NullOr(Schema.String),
  max_memory_restart: Schema.NullOr(Bytes),
  max_restarts: NonNegativeInt,
  min_uptime: Milliseconds,
  restart_delay: Milliseconds,
  /** First delay of the exponential backoff between unstable restarts (doubles up to 15 s). */
  exp_backoff_restart_delay: Milliseconds,
  kill_timeout: Milliseconds,
  /**
   * PM2's `kill_signal`: the first signal of a stop, SIGKILL following after `kill_timeout`; null
   * for pmfx's default (`defaultKillSignal`: SIGTERM, SIGINT for a cluster worker). Optional when
   * decoding, so a state file saved before the setting existed still loads.
   */
  kill_signal: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => pm2AppDefaults.kill_signal }),
  autorestart: Schema.Boolean,
  user: Schema.NullOr(Schema.String),
  group: Schema.NullOr(Schema.String),
  /** Octal, like `"022"`. */
  umask: Schema.NullOr(Schema.String),
  watch: Schema.Boolean,
  /** Absolute paths watched when `watch` is on (default: `cwd`). */
  watch_paths: Schema.Array(Schema.String),
  ignore_watch: Schema.Array(Schema.String),
  /** Optional when decoding, so a state file saved before the setting existed still loads. */
  watch_options: Schema.optionalWith(WatchOptions, { default: () => ({}) }),
  /** Apps to wait for and the condition of each; a bare name (a state file before conditions) is `online`. */
  depends_on: Schema.Array(DependencyEntry),
  /**
   * An RE2 pattern: a line of the app's output matching it makes the app ready for dependents
   * waiting on `log_ready`; null for none. Optional when decoding, so an older state file loads.
   */
  ready_log_line: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /** Absolute log and pid paths; null means the default under `PMFX_HOME`. */
  out_file: Schema.NullOr(Schema.String),
  error_file: Schema.NullOr(Schema.String),
  log_file: Schema.NullOr(Schema.String),
  pid_file: Schema.NullOr(Schema.String),
  /** Timestamp pattern of each log line; `"none"` turns the prefix off. */
  log_date_format: Schema.String,
  log_type: Schema.Literal("text", "json"),
  merge_logs: Schema.Boolean,
  max_log_size: Schema.NullOr(Bytes),
  max_log_files: Schema.Int.pipe(Schema.positive()),
  compress_logs: Schema.Boolean,
  /**
   * The longest line stored as one record, in bytes; a longer one is stored as several, marked as
   * continuing (docs/configuration.md). Optional when decoding, so a state file saved before the
   * setting existed still loads.
   */
  max_line_length: Schema.optionalWith(Bytes, { default: () => appDefaults.max_line_length }),
  rotation_schedule: Schema.NullOr(Schema.Literal("daily")),
  health_check: Schema.NullOr(HealthCheckDefinition),
  alerts: Schema.NullOr(AlertRules),
  /**
   * `cluster`: the instances are workers of one Node cluster primary sharing the app's port
   * (docs/configuration.md). The four settings below are optional when decoding, so a state file
   * saved before they existed still loads.
   */
  exec_mode: Schema.optionalWith(Schema.Literal("fork", "cluster"), { default: () => appDefaults.exec_mode }),
  /** Online only once the process sends `'ready'` over IPC (or `listen_timeout` passed). */
  wait_ready: Schema.optionalWith(Schema.Boolean, { default: () => appDefaults.wait_ready }),
  /** How long to wait for `'ready'` (wait_ready) or a cluster worker's listening before going on. */
  listen_timeout: Schema.optionalWith(Milliseconds, { default: () => appDefaults.listen_timeout }),
  /** Stop by sending the `'shutdown'` IPC message instead of a signal (SIGKILL after kill_timeout). */
  shutdown_with_message: Schema.optionalWith(Schema.Boolean, { default: () => appDefaults.shutdown_with_message }),
  // PM2 settings (docs/configuration.md §3.11). Optional when decoding, with their defaults, so a
  // state file saved before they existed still loads.
  /** Flags given to the interpreter before the script (`node_args` / `interpreter_args`). */
  interpreter_args: Schema.optionalWith(Schema.Array(Schema.String), {
    default: () => [...pm2AppDefaults.interpreter_args]
  }),
  /** The variable carrying the instance index (besides PMFX_INSTANCE_ID). */
  instance_var: Schema.optionalWith(Schema.String, { default: () => pm2AppDefaults.instance_var }),
  /** A variable whose value (a whole number, 0 when unset) goes up by one per instance. */
  increment_var: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => pm2AppDefaults.increment_var }),
  /** Node's `--enable-source-maps`: on, off, or null for PM2's rule (on when `<script>.map` exists). */
  source_map_support: Schema.optionalWith(Schema.NullOr(Schema.Boolean), {
    default: () => pm2AppDefaults.source_map_support
  }),
  /** Exit codes that settle the instance `stopped` instead of restarting it. */
  stop_exit_codes: Schema.optionalWith(Schema.Array(NonNegativeInt), {
    default: () => [...pm2AppDefaults.stop_exit_codes]
  }),
  /** A cron schedule (cronSchedule.ts) at which the daemon restarts the app; null for none. */
  cron_restart: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => pm2AppDefaults.cron_restart }),
  /** False: the app is registered `stopped` and started only when asked. */
  autostart: Schema.optionalWith(Schema.Boolean, { default: () => pm2AppDefaults.autostart }),
  /** Variables of the starting environment not inherited: all (`true`), none, or names containing these. */
  filter_env: Schema.optionalWith(Schema.Union(Schema.Boolean, Schema.Array(Schema.String)), {
    default: () => pm2AppDefaults.filter_env
  }),
  /**
   * The ecosystem file the app was defined from (absolute path), or null for an app started from
   * the command line or the API. Set by the loader, never by a file's own key; not a setting (an
   * apply does not restart an app for it). Optional when decoding, so an older state file loads.
   */
  config_file: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export type AppDefinition = typeof AppDefinition.Type

/** The default timestamp pattern: ISO 8601 in UTC with milliseconds. */
export const ISO_DATE_FORMAT = "YYYY-MM-DDTHH:mm:ss.SSSZ"

/** Defaults of docs/architecture.md §4 for every setting a user may leave out. */
export const appDefaults = {
  namespace: "default",
  instances: 1,
  max_restarts: 16,
  min_uptime: 1_000,
  restart_delay: 0,
  exp_backoff_restart_delay: 100,
  kill_timeout: 5_000,
  autorestart: true,
  watch: false,
  log_date_format: ISO_DATE_FORMAT,
  log_type: "text",
  merge_logs: false,
  max_log_files: 10,
  compress_logs: false,
  max_line_length: 1024 * 1024,
  exec_mode: "fork",
  wait_ready: false,
  /** PM2's default (GRACEFUL_LISTEN_TIMEOUT). */
  listen_timeout: 3_000,
  shutdown_with_message: false,
  health_check: { interval: 30_000, timeout: 5_000, retries: 3 }
} as const

/** Defaults of the PM2 settings (docs/configuration.md §3.11), as they appear in a resolved definition. */
export const pm2AppDefaults = {
  interpreter_args: [] as ReadonlyArray<string>,
  instance_var: "NODE_APP_INSTANCE",
  increment_var: null,
  source_map_support: null,
  stop_exit_codes: [] as ReadonlyArray<number>,
  cron_restart: null,
  autostart: true,
  filter_env: false,
  /** pmfx's default signal (domain/killSignal.ts), not PM2's SIGINT (docs/decisions.md). */
  kill_signal: null
} as const

/** The range of `max_line_length`: a piece must be worth a record, and a stream buffers one line. */
export const MAX_LINE_LENGTH_RANGE = { min: 1024, max: 16 * 1024 * 1024 } as const

/**
 * The most instances one app may have, and one create request may ask for over all its apps: the
 * table makes a row per instance before anything is spawned, so `"instances": 1e12` would stall
 * the daemon. Far above any machine's `max`.
 */
export const MAX_INSTANCES = 1024

/**
 * The most apps one ecosystem file (or one create request) may define — and, with their instances
 * summed, the most processes: the same figure as `MAX_INSTANCES`, since every app is at least one
 * process. Starting is roughly 40 ms per app on a 2-core machine, so a file at the limit takes
 * about 40 s; a bigger fleet belongs in several files.
 */
export const MAX_APPS = MAX_INSTANCES
