/** Request and response bodies of the HTTP API that are not domain records (docs/api.md). */
import { Schema } from "effect"
import { LogEntry } from "../logs/LogEntry"
import { ProcessSummary } from "../domain/ProcessSummary"
import { ProcessStatus } from "../domain/ProcessStatus"
import { AlertRules, AppDefinition, Webhook } from "../domain/AppDefinition"
import { AlertRecord, HISTORY_CAPACITY, WebhookDeliveryRecord } from "../domain/NotificationRecords"

/** `GET /` (docs/api.md §3). */
export const ServiceInfo = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  status: Schema.String,
  /** Where each part of the API is (`SERVICE_ENDPOINTS`, api/handlers/system.ts). */
  endpoints: Schema.Struct({
    processes: Schema.String,
    system: Schema.String,
    status: Schema.String,
    websocket: Schema.String,
    // Optional so that this CLI still recognizes an older daemon's record (its probe reads `GET /`).
    system_stats: Schema.optional(Schema.String),
    health: Schema.optional(Schema.String),
    alerts: Schema.optional(Schema.String),
    webhook_deliveries: Schema.optional(Schema.String),
    metrics: Schema.optional(Schema.String),
    openapi: Schema.optional(Schema.String),
    dashboard: Schema.optional(Schema.String)
  })
})

/** What every action returns: the rows after the action. */
export const ActionResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  processes: Schema.Array(ProcessSummary),
  /** `POST /api/processes` with app settings: what the definitions carried but pmfx ignores (unknown keys…). */
  warnings: Schema.optional(Schema.Array(Schema.String))
})
export type ActionResult = typeof ActionResult.Type

export const ReloadResult = Schema.Struct({
  ...ActionResult.fields,
  /** Apps with a single instance, restarted instead of reloaded. */
  restarted_instead: Schema.Array(Schema.String)
})

export const DeleteResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  deleted: Schema.Array(Schema.Int)
})

/**
 * `POST /api/processes`: one app's settings, `{apps:[...]}` (validated like an ecosystem file,
 * relative paths against `cwd`), or — what the CLI sends — `{definitions:[...]}` already resolved
 * by the CLI's own loader. `env` is the starting environment of the apps (the CLI's own).
 */
export const CreateRequest = Schema.Struct({
  definitions: Schema.optional(Schema.Array(AppDefinition)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  /** An ecosystem file's top-level `webhooks` (replace the daemon's list) and `alerts` (its global thresholds). */
  webhooks: Schema.optional(Schema.Array(Webhook)),
  alerts: Schema.optional(Schema.NullOr(AlertRules))
})

/** `POST …/scale`: the new instance count (`4`, `"4"`), or a change of it (`"+2"`, `"-1"`). */
export const ScaleRequest = Schema.Struct({
  instances: Schema.Union(Schema.Int, Schema.String).annotations({
    description: 'the new count (4), or a change of it ("+2", "-1")'
  })
})

export const ScaleResult = Schema.Struct({
  ...ActionResult.fields,
  /** The instance count before and after. */
  from: Schema.Int,
  to: Schema.Int,
  /** Ids of the rows added (started when the app runs) and of the rows stopped and removed. */
  added: Schema.Array(Schema.Int),
  removed: Schema.Array(Schema.Int)
})

/**
 * `restart` / `reload`: an optional one-time port or range; `update_env` with `env` makes `env`
 * the apps' starting environment from now on (PM2's `--update-env`).
 */
export const PortOverride = Schema.Struct({
  port: Schema.optional(Schema.String),
  update_env: Schema.optional(Schema.Boolean),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})

/** `POST /api/apply`: how the file's apps are applied (docs/api.md, "POST /api/apply"). */
export const ApplyMode = Schema.Literal("start", "restart", "reload", "apply")

/** `POST /api/apply`: an ecosystem file's apps, resolved by the caller, and how to apply them. */
export const ApplyRequest = Schema.Struct({
  apps: Schema.Array(AppDefinition),
  mode: ApplyMode,
  /** mode apply: also delete the apps of the file's namespaces that the file does not name. */
  prune: Schema.optional(Schema.Boolean),
  /** Only answer the plan; change nothing. */
  dry_run: Schema.optional(Schema.Boolean),
  /** Give every app of the file `env` as its starting environment (new apps always get it). */
  update_env: Schema.optional(Schema.Boolean),
  /** The caller's environment (the CLI's own), the lowest layer of each app's environment. */
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  webhooks: Schema.optional(Schema.Array(Webhook)),
  alerts: Schema.optional(Schema.NullOr(AlertRules))
})
export type ApplyRequest = typeof ApplyRequest.Type

/** What happened to one app of `POST /api/apply`. */
export const AppOutcome = Schema.Struct({
  name: Schema.String,
  namespace: Schema.String,
  action: Schema.Literal("create", "start", "restart", "reload", "update", "unchanged", "changed", "delete"),
  /** Settings that differ from the app's current definition (`caller_env`: its starting environment, with update_env). */
  changed_keys: Schema.Array(Schema.String),
  ok: Schema.Boolean,
  /** Present (true) when a reload restarted the app instead (one instance). */
  restarted_instead: Schema.optional(Schema.Boolean),
  /** Why this app's step failed: the `error` object of the error shape. */
  error: Schema.optional(
    Schema.Struct({
      code: Schema.String,
      message: Schema.String,
      details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
    })
  )
})

export const ApplyResult = Schema.Struct({
  /** True when every app's step succeeded. */
  success: Schema.Boolean,
  message: Schema.String,
  dry_run: Schema.Boolean,
  apps: Schema.Array(AppOutcome),
  /** The rows of the file's apps afterwards (empty for a dry run). */
  processes: Schema.Array(ProcessSummary)
})
export type ApplyResult = typeof ApplyResult.Type

/** A log file that cannot be written (or reopened): its path, why, and the lines it lost. */
const FailingLogFile = Schema.Struct({ path: Schema.String, reason: Schema.String, dropped_lines: Schema.Int })

/** `POST /api/processes/{id}/flush` and `POST /api/logs/flush`: the log files emptied. */
export const FlushResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  files: Schema.Array(Schema.String)
})

/** `POST /api/logs/reload`: the open log files reopened at their paths, and those that could not be. */
export const ReloadLogsResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  reopened: Schema.Array(Schema.String),
  failed: Schema.Array(FailingLogFile)
})

/** `POST …/signal`: a signal name (`SIGUSR2`, `USR2`) or number (`12`). */
export const SignalRequest = Schema.Struct({
  signal: Schema.Union(Schema.Int, Schema.String).annotations({
    description: "a signal name (SIGUSR2 or USR2) or number (12)"
  })
})

export const SignalResult = Schema.Struct({
  ...ActionResult.fields,
  /** The signal as sent: its name and number. */
  signal: Schema.String,
  signal_number: Schema.Int,
  /** Ids of the rows whose process got the signal (rows not running are skipped). */
  signalled: Schema.Array(Schema.Int)
})

/** `GET …/env`: `show_secrets=true` shows the values of secret-looking keys (never to a read-only key). */
export const EnvQuery = Schema.Struct({
  show_secrets: Schema.optional(
    Schema.String.annotations({ description: "true or false (1 or 0 also work); default false" })
  )
})

export const EnvResult = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  instance: Schema.Int,
  /** `process`: the running process's own environment; `next_start`: what its next start gets (it does not run). */
  source: Schema.Literal("process", "next_start"),
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  /** Keys whose values are replaced by `***`. */
  masked: Schema.Array(Schema.String)
})

export const ProcessListQuery = Schema.Struct({
  /** Comma-separated states, exact. */
  status: Schema.optional(Schema.String),
  /** Exact name, or a `*` glob. */
  name: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.String)
})

/** `DELETE /api/processes`: by state (`status`), or one target (`id`) with the ids it removed in the answer. */
export const DeleteQuery = Schema.Struct({ status: Schema.optional(Schema.String), id: Schema.optional(Schema.String) })

/** The largest request body the daemon reads (413 above it). */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The largest body of `POST /api/apply`: a whole file in one request — up to `MAX_APPS` resolved
 * definitions with their environments, which can pass 1 MiB.
 */
export const MAX_APPLY_BODY_BYTES = 8 * MAX_BODY_BYTES

/** `GET …/ready`: how long it waits when no `timeout` is given, and the longest `timeout` it takes. */
export const DEFAULT_READY_TIMEOUT_MS = 60_000
export const MAX_READY_TIMEOUT_MS = 10 * 60_000

export const ReadyQuery = Schema.Struct({
  timeout: Schema.optional(
    Schema.String.annotations({
      description: "a duration such as 30s or 2m (a bare number is milliseconds), at most 10m; default 60s"
    })
  )
})

/** A yes/no query parameter: `true`/`1` or `false`/`0` (checked by the handler, BAD_REQUEST otherwise). */
const BooleanText = Schema.String.annotations({ description: "true or false (1 or 0 also work)" })

export const LogsQuery = Schema.Struct({
  lines: Schema.optional(Schema.String),
  stream: Schema.optional(Schema.String),
  instance: Schema.optional(Schema.String),
  grep: Schema.optional(Schema.String),
  level: Schema.optional(Schema.String),
  since: Schema.optional(Schema.String),
  until: Schema.optional(Schema.String),
  follow: Schema.optional(BooleanText)
})

/** `GET /api/processes/{id}/metrics?history=15m`: the history window (docs/api.md), a duration of at most 15m. */
export const MetricsQuery = Schema.Struct({
  history: Schema.optional(
    Schema.String.annotations({
      description: "a duration up to 15m (like 5m or 900s): history covers that window instead of the last 60 samples"
    })
  )
})

export const HealthQuery = Schema.Struct({ strict: Schema.optional(BooleanText) })

export const LogsResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  entries: Schema.Array(LogEntry)
})

export const SystemInfo = Schema.Struct({
  hostname: Schema.String,
  platform: Schema.String,
  arch: Schema.String,
  release: Schema.String,
  cpus: Schema.Int,
  total_memory: Schema.Number,
  node_version: Schema.String,
  version: Schema.String,
  /** `rss`: the daemon's own resident memory in bytes (the dashboard's System panel). */
  daemon: Schema.Struct({
    pid: Schema.Int,
    started_at: Schema.String,
    uptime: Schema.String,
    home: Schema.String,
    rss: Schema.Int
  })
})

export const DaemonStatus = Schema.Struct({
  version: Schema.String,
  pid: Schema.Int,
  uptime: Schema.String,
  uptime_ms: Schema.Int,
  home: Schema.String,
  socket: Schema.String,
  processes: Schema.Struct({
    total: Schema.Int,
    by_status: Schema.Record({ key: ProcessStatus, value: Schema.Int })
  }),
  web: Schema.NullOr(Schema.Struct({ host: Schema.String, port: Schema.Int, auth: Schema.Boolean }))
})

export const HealthReport = Schema.Struct({
  status: Schema.Literal("healthy", "degraded"),
  daemon: Schema.Struct({ pid: Schema.Int, uptime: Schema.String }),
  processes: Schema.Struct({ total: Schema.Int, online: Schema.Int, errored: Schema.Int, unhealthy: Schema.Int }),
  /** Whether state.json holds what the daemon runs (docs/api.md, GET /health). */
  state: Schema.Struct({
    saved: Schema.Boolean,
    last_saved_at: Schema.NullOr(Schema.String),
    error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String, since: Schema.String }))
  }),
  /** Log lines lost because a log file could not be written, and the files failing now. */
  logs: Schema.Struct({
    dropped_lines: Schema.Int,
    failing: Schema.Array(FailingLogFile)
  })
})

export const KillResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  stopped: Schema.Array(Schema.Int),
  /** What ends: the background daemon (`pmfx resurrect` starts the apps again) or `pmfx-runtime` (the container ends). */
  host: Schema.Literal("daemon", "runtime")
})

/** `POST /daemon/restart` (socket only): the daemon ends, leaving these rows' processes running for the next daemon. */
export const HandOverResult = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  /** Ids of the rows whose processes keep running, to be adopted. */
  running: Schema.Array(Schema.Int)
})

/** `PUT /daemon/web` (socket only): open, re-open or (`stop`) close the TCP listener. */
export const WebRequest = Schema.Struct({
  host: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1)), { default: () => "localhost" }),
  port: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 65535)), { default: () => 9615 }),
  api_key: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  read_only_api_key: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  cors_origins: Schema.optional(Schema.Array(Schema.String)),
  verbose: Schema.optional(Schema.Boolean),
  /** `GET /metrics` without a key (docs/metrics.md). */
  metrics_public: Schema.optional(Schema.Boolean),
  stop: Schema.optional(Schema.Boolean)
})

/** The TCP listener as `PUT /daemon/web` reports it (never with its keys); `listening: false` after `stop`. */
export const WebListenerResult = Schema.Struct({
  host: Schema.String,
  port: Schema.Int,
  auth: Schema.Boolean,
  url: Schema.String,
  listening: Schema.Boolean
})

/** `GET /api/alerts` and `GET /api/webhooks/deliveries`: how many of the newest entries (checked by the handler). */
export const HistoryQuery = Schema.Struct({
  limit: Schema.optional(
    Schema.String.annotations({
      description: `a whole number from 1 to ${HISTORY_CAPACITY}; default ${HISTORY_CAPACITY} (all the daemon keeps)`
    })
  )
})

const historyFields = {
  /** How many entries the daemon keeps (the oldest go first); a restart empties the history. */
  capacity: Schema.Int,
  /** Entries recorded since the daemon started, including those no longer kept. */
  recorded: Schema.Int
}

/** `GET /api/alerts`: the alerts raised, newest first. */
export const AlertHistory = Schema.Struct({ ...historyFields, alerts: Schema.Array(AlertRecord) })

/** `GET /api/webhooks/deliveries`: the webhook deliveries, newest first, their URLs redacted. */
export const DeliveryHistory = Schema.Struct({ ...historyFields, deliveries: Schema.Array(WebhookDeliveryRecord) })
