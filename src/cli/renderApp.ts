/** The readable block `pmfx show` prints for one resolved app. */
import { killSignalOf } from "../domain/killSignal"
import type { AppDefinition } from "../domain/AppDefinition"
import { describeDependency } from "../domain/Dependency"
import { formatDuration } from "../domain/Duration"
import { instanceFiles } from "../domain/logPaths"
import { quoteShellWord } from "../domain/shellWords"
import { commandText } from "./commandText"
import { formatSize } from "../domain/Size"
import { nextRunOf } from "../domain/cronSchedule"
import { commandLineFor } from "../supervisor/commandLine"
import { formatLocal } from "./renderProcess"
import { columns, style } from "./style"

const none = "-"

const orNone = (value: string | null | undefined) =>
  value === null || value === undefined || value === "" ? none : value

export const renderApp = (app: AppDefinition, home: string): string => {
  const out = process.stdout
  const cron = app.cron_restart === null ? null : nextRunOf(app.cron_restart, Date.now())
  // The command line the daemon would run (interpreter, its flags, the script), when it resolves here.
  const resolved = commandLineFor(app, process.env.PATH)
  const words =
    resolved._tag === "Ok"
      ? [resolved.command.file, ...resolved.command.args]
      : [app.interpreter, ...app.interpreter_args, app.script, ...app.args].filter((w): w is string => w !== null)
  const command =
    app.shell !== null
      ? commandText(`${app.shell} -c`, app.script, app.args)
      : words.map(quoteShellWord).join(" ") + (resolved._tag === "Ok" ? "" : `  (${resolved.problem.reason})`)
  const env = Object.entries(app.env).map(([k, v]) => `${k}=${v}`)
  const health = app.health_check
  const rows: Array<[string, string]> = [
    ["command", command],
    ...(app.shell === null
      ? []
      : [["shell", `${app.shell} -c (script is a command line, not a file)`] satisfies [string, string]]),
    ["cwd", app.cwd],
    ["instances", String(app.instances)],
    ["port", orNone(app.port)],
    ["env", env.length === 0 ? none : env[0]!],
    ...env.slice(1).map((line): [string, string] => ["", line]),
    ["env_file", orNone(app.env_file)],
    ["autostart", app.autostart ? "true" : "false (registered stopped)"],
    ["autorestart", String(app.autorestart)],
    ["stop_exit_codes", app.stop_exit_codes.length === 0 ? none : app.stop_exit_codes.join(", ")],
    [
      "cron_restart",
      app.cron_restart === null
        ? none
        : `${app.cron_restart} (next ${cron === null ? "unknown" : formatLocal(new Date(cron))})`
    ],
    [
      "instance_var",
      app.increment_var === null ? app.instance_var : `${app.instance_var}, increment_var ${app.increment_var}`
    ],
    [
      "filter_env",
      app.filter_env === false ? none : app.filter_env === true ? "all inherited variables" : app.filter_env.join(", ")
    ],
    ["max_restarts", String(app.max_restarts)],
    ["min_uptime", formatDuration(app.min_uptime)],
    ["restart_delay", formatDuration(app.restart_delay)],
    ["exp_backoff_restart_delay", formatDuration(app.exp_backoff_restart_delay)],
    ["kill_signal", app.kill_signal ?? `${killSignalOf(app)} (default)`],
    ["kill_timeout", formatDuration(app.kill_timeout)],
    ["max_memory_restart", app.max_memory_restart === null ? none : formatSize(app.max_memory_restart)],
    ["user / group", `${orNone(app.user)} / ${orNone(app.group)}`],
    ["umask", orNone(app.umask)],
    ["watch", app.watch ? app.watch_paths.join(", ") : "off"],
    ["ignore_watch", app.ignore_watch.length === 0 ? none : app.ignore_watch.join(", ")],
    ...(Object.keys(app.watch_options).length === 0
      ? []
      : [["watch_options", JSON.stringify(app.watch_options)] satisfies [string, string]]),
    ["depends_on", app.depends_on.length === 0 ? none : app.depends_on.map(describeDependency).join(", ")],
    ...(app.ready_log_line === null ? [] : [["ready_log_line", app.ready_log_line] satisfies [string, string]]),
    [
      "health_check",
      health === null
        ? none
        : `${health.enabled ? "" : "(disabled) "}${health.check_type} ${health.url ?? health.script ?? ""} every ${formatDuration(health.interval)}, timeout ${formatDuration(health.timeout)}, ${health.retries} retries`
    ],
    [
      "log format",
      `${app.log_type}, timestamps ${app.log_date_format === "none" ? "off" : app.log_date_format}${app.merge_logs ? ", merged" : ""}`
    ],
    [
      "log rotation",
      `${app.max_log_size === null ? "" : `at ${formatSize(app.max_log_size)}`}${app.rotation_schedule === null ? "" : `${app.max_log_size === null ? "" : ", "}${app.rotation_schedule}`}`.trim() ===
      ""
        ? none
        : `${app.max_log_size === null ? "" : `at ${formatSize(app.max_log_size)}, `}${app.rotation_schedule === null ? "" : `${app.rotation_schedule}, `}keep ${app.max_log_files}${app.compress_logs ? ", gzip" : ""}`
    ]
  ]
  for (let instance = 0; instance < app.instances; instance++) {
    const files = instanceFiles(app, instance, home)
    const label = app.instances === 1 ? "" : ` ${instance}`
    rows.push([`out${label}`, files.out_file], [`err${label}`, files.error_file])
    if (files.log_file !== null) rows.push([`log${label}`, files.log_file])
    rows.push([`pid${label}`, files.pid_file])
  }
  const heading = `${style.bold(out)(app.name)} ${style.dim(out)(`namespace ${app.namespace}`)}`
  return [heading, ...columns(rows.map(([k, v]) => [style.dim(out)(k), v])).map((line) => `  ${line}`)].join("\n")
}
