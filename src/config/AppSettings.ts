/**
 * What a user may write for one app (docs/configuration.md §3, docs/architecture.md §6) and at the top of an ecosystem file.
 * Every setting is optional except `script`; values are decoded leniently (`"2"` is 2) by the
 * codecs in `settingCodecs.ts`. Unknown keys are reported by the validator with the closest
 * known key as a suggestion.
 */
import { Schema } from "effect"
import { MAX_LINE_LENGTH_RANGE, WebhookEvent } from "../domain/AppDefinition"
import { Dependency } from "../domain/Dependency"
import { DurationMs, DurationSecondsMs } from "../domain/Duration"
import { PortSetting } from "../domain/Port"
import { SizeBetween, SizeBytes } from "../domain/Size"
import {
  Args,
  Bool,
  CronSetting,
  DateFormatSetting,
  Decimal,
  EnvMap,
  EnvName,
  ExitCodes,
  KillSignal,
  FilterEnv,
  Instances,
  Integer,
  literalOf,
  NonEmptyText,
  TextList,
  Umask,
  WatchSetting
} from "./settingCodecs"
import { WatchOptionsSettings } from "./watchOptions"

/** An optional key; `exact` so a bad value reports one problem, not also "expected undefined". */
const opt = <A, I>(schema: Schema.Schema<A, I>) => Schema.optionalWith(schema, { exact: true })

const LineLength = SizeBetween(MAX_LINE_LENGTH_RANGE.min, MAX_LINE_LENGTH_RANGE.max)

export const HealthCheckSettings = Schema.Struct({
  enabled: opt(Bool),
  check_type: opt(literalOf(["http", "script"], "CheckType")),
  url: opt(NonEmptyText),
  script: opt(NonEmptyText),
  timeout: opt(DurationSecondsMs),
  interval: opt(DurationSecondsMs),
  retries: opt(Integer(1))
})
export type HealthCheckSettings = typeof HealthCheckSettings.Type

export const LogSettings = Schema.Struct({
  out_file: opt(NonEmptyText),
  error_file: opt(NonEmptyText),
  log_file: opt(NonEmptyText),
  log_type: opt(literalOf(["text", "json"], "LogType")),
  log_date_format: opt(DateFormatSetting),
  merge_logs: opt(Bool),
  max_log_size: opt(SizeBytes),
  max_log_files: opt(Integer(1)),
  compress_logs: opt(Bool),
  rotation_schedule: opt(literalOf(["daily"], "RotationSchedule")),
  max_line_length: opt(LineLength)
})
export type LogSettings = typeof LogSettings.Type

export const RestartLoopSettings = Schema.Struct({
  restarts: opt(Integer(1)),
  window: opt(DurationMs)
})

export const AlertSettings = Schema.Struct({
  memory: opt(SizeBytes),
  cpu_percent: opt(Decimal),
  cpu_duration: opt(DurationMs),
  restart_loop: opt(RestartLoopSettings)
})
export type AlertSettings = typeof AlertSettings.Type

export const AppSettings = Schema.Struct({
  name: opt(NonEmptyText),
  script: NonEmptyText,
  args: opt(Args),
  interpreter: opt(NonEmptyText),
  instances: opt(Instances),
  port: opt(PortSetting),
  env: opt(EnvMap),
  env_file: opt(NonEmptyText),
  max_memory_restart: opt(SizeBytes),
  max_restarts: opt(Integer(0)),
  min_uptime: opt(DurationMs),
  restart_delay: opt(DurationMs),
  exp_backoff_restart_delay: opt(DurationMs),
  kill_timeout: opt(DurationMs),
  kill_signal: opt(KillSignal),
  autorestart: opt(Bool),
  cwd: opt(NonEmptyText),
  user: opt(NonEmptyText),
  group: opt(NonEmptyText),
  umask: opt(Umask),
  watch: opt(WatchSetting),
  ignore_watch: opt(TextList),
  watch_options: opt(WatchOptionsSettings),
  /** Checked entry by entry by `dependsOnSetting.ts` (each with its own field path), never decoded here. */
  depends_on: opt(Schema.Array(Dependency)),
  ready_log_line: opt(NonEmptyText),
  namespace: opt(NonEmptyText),
  extends: opt(NonEmptyText),
  out_file: opt(NonEmptyText),
  error_file: opt(NonEmptyText),
  log_file: opt(NonEmptyText),
  pid_file: opt(NonEmptyText),
  log_date_format: opt(DateFormatSetting),
  log_type: opt(literalOf(["text", "json"], "LogType")),
  merge_logs: opt(Bool),
  max_log_size: opt(SizeBytes),
  max_log_files: opt(Integer(1)),
  compress_logs: opt(Bool),
  rotation_schedule: opt(literalOf(["daily"], "RotationSchedule")),
  max_line_length: opt(LineLength),
  log: opt(LogSettings),
  health_check: opt(HealthCheckSettings),
  alerts: opt(AlertSettings),
  /** PM2's spellings: `cluster`/`cluster_mode` run the instances as workers of one Node cluster primary. */
  exec_mode: opt(literalOf(["fork", "fork_mode", "cluster", "cluster_mode"], "ExecMode")),
  wait_ready: opt(Bool),
  listen_timeout: opt(DurationMs),
  shutdown_with_message: opt(Bool),
  // PM2 settings with PM2's meaning (docs/configuration.md §3.11).
  node_args: opt(Args),
  interpreter_args: opt(Args),
  instance_var: opt(EnvName),
  increment_var: opt(EnvName),
  time: opt(Bool),
  source_map_support: opt(Bool),
  disable_source_map_support: opt(Bool),
  stop_exit_codes: opt(ExitCodes),
  cron_restart: opt(CronSetting),
  autostart: opt(Bool),
  filter_env: opt(FilterEnv)
})
export type AppSettings = typeof AppSettings.Type

export const WebhookSettings = Schema.Struct({
  enabled: opt(Bool),
  url: NonEmptyText,
  events: opt(Schema.Array(literalOf(WebhookEvent.literals, "WebhookEvent")))
})

/** Top-level keys of an ecosystem file besides `apps`. */
export const EcosystemSettings = Schema.Struct({
  webhooks: opt(Schema.Array(WebhookSettings)),
  alerts: opt(AlertSettings),
  extends: opt(NonEmptyText)
})
