/**
 * Turns validated settings into a full `AppDefinition`: defaults applied (docs/architecture.md §4), the selected
 * `env_<name>` block merged over `env`, paths made absolute. Relative `cwd`, `env_file`, log and
 * pid paths resolve against the folder of the file that defined the app (or the caller's cwd);
 * `script`, watch paths and a health check script resolve against the app's `cwd`, as in PM2.
 */
import * as path from "node:path"
import type { AppDefinition, AlertRules, WatchOptions } from "../domain/AppDefinition"
import { appDefaults, pm2AppDefaults } from "../domain/AppDefinition"
import type { AlertSettings } from "./AppSettings"
import { NO_TIMESTAMP } from "../logs/TimestampPattern"
import { resolveInstances } from "./settingCodecs"
import type { ValidatedApp } from "./validateEcosystem"
import { AWAIT_WRITE_FINISH_DEFAULTS, type WatchOptionsSettings } from "./watchOptions"

export interface ResolveContext {
  /** Folder that relative paths of the definition are written against. */
  readonly baseDir: string
  readonly cpus: number
  /** `--env <name>`: the `env_<name>` block to merge over `env`. */
  readonly envName?: string | undefined
  /** Whether a path names an existing file (decides if a bare `script` is a file or a command). */
  readonly isFile: (file: string) => boolean
  /** Whether a command is found in the PATH apps will get (bash, else sh, runs a command line). */
  readonly hasCommand: (command: string) => boolean
}

/**
 * A `script` with a space that is no file is a command line (`npm run start:prod`): PM2 runs it
 * through `bash -c` (`sh -c` without bash), and so does pmfx — only then, since the user asked
 * for it by writing one. With an `interpreter`, `script` is always the file it runs.
 */
const isCommandLine = (
  script: string,
  cwd: string,
  interpreter: string | null,
  isFile: (file: string) => boolean
): boolean => interpreter === null && /\s/.test(script.trim()) && !isFile(path.resolve(cwd, script))

/** A script or command: a path when it has a slash or names a file in `dir`, else a command looked up in PATH. */
const resolveExecutable = (script: string, dir: string, isFile: (file: string) => boolean): string => {
  if (path.isAbsolute(script)) return script
  const candidate = path.resolve(dir, script)
  return script.includes("/") || isFile(candidate) ? candidate : script
}

/** The honoured watcher options, only those set; `true` for awaitWriteFinish is chokidar's defaults. */
const resolveWatchOptions = (written: WatchOptionsSettings | undefined, watchBase: string): WatchOptions => {
  if (written === undefined) return {}
  const { awaitWriteFinish, cwd, ...rest } = written
  return {
    ...rest,
    ...(awaitWriteFinish === undefined || awaitWriteFinish === false
      ? {}
      : { awaitWriteFinish: awaitWriteFinish === true ? AWAIT_WRITE_FINISH_DEFAULTS : awaitWriteFinish }),
    ...(cwd === undefined ? {} : { cwd: watchBase })
  }
}

export const resolveAlerts = (alerts: AlertSettings | undefined): AlertRules | null => {
  if (alerts === undefined) return null
  const { restart_loop, ...rest } = alerts
  return {
    ...rest,
    ...(restart_loop === undefined
      ? {}
      : { restart_loop: { restarts: restart_loop.restarts ?? 5, window: restart_loop.window ?? 60_000 } })
  }
}

export const resolveApp = (app: ValidatedApp, context: ResolveContext): AppDefinition => {
  const s = app.settings
  const log = { ...s, ...s.log }
  const fromBase = (file: string | undefined) => (file === undefined ? null : path.resolve(context.baseDir, file))
  const cwd = path.resolve(context.baseDir, s.cwd ?? ".")
  const selectedEnv = context.envName === undefined ? undefined : app.envBlocks[context.envName]
  const interpreter = s.interpreter === undefined || s.interpreter === "none" ? null : s.interpreter
  const watch = s.watch ?? appDefaults.watch
  const health = s.health_check
  const commandLine = isCommandLine(s.script, cwd, interpreter, context.isFile)
  // chokidar's `cwd`: where relative watch paths and ignore patterns start (the app's cwd by default).
  const watchBase = path.resolve(cwd, s.watch_options?.cwd ?? ".")

  return {
    name: app.name,
    namespace: s.namespace ?? appDefaults.namespace,
    script: commandLine ? s.script.trim() : resolveExecutable(s.script, cwd, context.isFile),
    args: s.args ?? [],
    interpreter: interpreter === null ? null : resolveExecutable(interpreter, cwd, context.isFile),
    shell: commandLine ? (context.hasCommand("bash") || !context.hasCommand("sh") ? "bash" : "sh") : null,
    cwd,
    instances: resolveInstances(s.instances ?? appDefaults.instances, context.cpus),
    port: s.port ?? null,
    env: { ...s.env, ...selectedEnv },
    env_file: fromBase(s.env_file),
    max_memory_restart: s.max_memory_restart ?? null,
    max_restarts: s.max_restarts ?? appDefaults.max_restarts,
    min_uptime: s.min_uptime ?? appDefaults.min_uptime,
    restart_delay: s.restart_delay ?? appDefaults.restart_delay,
    exp_backoff_restart_delay: s.exp_backoff_restart_delay ?? appDefaults.exp_backoff_restart_delay,
    kill_timeout: s.kill_timeout ?? appDefaults.kill_timeout,
    kill_signal: s.kill_signal ?? pm2AppDefaults.kill_signal,
    autorestart: s.autorestart ?? appDefaults.autorestart,
    user: s.user ?? null,
    group: s.group ?? null,
    umask: s.umask ?? null,
    watch: watch !== false,
    watch_paths: watch === false ? [] : watch === true ? [cwd] : watch.map((p) => path.resolve(watchBase, p)),
    ignore_watch: s.ignore_watch ?? [],
    watch_options: resolveWatchOptions(s.watch_options, watchBase),
    depends_on: s.depends_on ?? [],
    ready_log_line: s.ready_log_line ?? null,
    out_file: fromBase(log.out_file),
    error_file: fromBase(log.error_file),
    log_file: fromBase(log.log_file),
    pid_file: fromBase(s.pid_file),
    // PM2's `time: false` turns timestamps off unless a format is given (docs/decisions.md).
    log_date_format: log.log_date_format ?? (s.time === false ? NO_TIMESTAMP : appDefaults.log_date_format),
    log_type: log.log_type ?? appDefaults.log_type,
    merge_logs: log.merge_logs ?? appDefaults.merge_logs,
    max_log_size: log.max_log_size ?? null,
    max_log_files: log.max_log_files ?? appDefaults.max_log_files,
    compress_logs: log.compress_logs ?? appDefaults.compress_logs,
    rotation_schedule: log.rotation_schedule ?? null,
    max_line_length: log.max_line_length ?? appDefaults.max_line_length,
    health_check:
      health === undefined
        ? null
        : {
            enabled: health.enabled ?? true,
            check_type:
              health.check_type ?? (health.script !== undefined && health.url === undefined ? "script" : "http"),
            url: health.url ?? null,
            script: health.script === undefined ? null : resolveExecutable(health.script, cwd, context.isFile),
            timeout: health.timeout ?? appDefaults.health_check.timeout,
            interval: health.interval ?? appDefaults.health_check.interval,
            retries: health.retries ?? appDefaults.health_check.retries
          },
    alerts: resolveAlerts(s.alerts),
    exec_mode: s.exec_mode === "cluster" || s.exec_mode === "cluster_mode" ? "cluster" : appDefaults.exec_mode,
    wait_ready: s.wait_ready ?? appDefaults.wait_ready,
    listen_timeout: s.listen_timeout ?? appDefaults.listen_timeout,
    shutdown_with_message: s.shutdown_with_message ?? appDefaults.shutdown_with_message,
    interpreter_args: s.node_args ?? s.interpreter_args ?? pm2AppDefaults.interpreter_args,
    instance_var: s.instance_var ?? pm2AppDefaults.instance_var,
    increment_var: s.increment_var ?? pm2AppDefaults.increment_var,
    source_map_support:
      s.disable_source_map_support === true ? false : (s.source_map_support ?? pm2AppDefaults.source_map_support),
    stop_exit_codes: s.stop_exit_codes ?? pm2AppDefaults.stop_exit_codes,
    cron_restart: s.cron_restart ?? pm2AppDefaults.cron_restart,
    autostart: s.autostart ?? pm2AppDefaults.autostart,
    filter_env: s.filter_env ?? pm2AppDefaults.filter_env,
    // The loader records the file (ConfigLoader.ts); a definition given as data has none.
    config_file: null
  }
}
