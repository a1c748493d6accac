/**
 * Readable blocks for what the daemon says about processes: `show <name|id>` (a process detail),
 * `status` (the daemon) and `status <name|id>` (health lines).
 */
import { describeDependency } from "../domain/Dependency"
import type { ProcessDetail } from "../domain/ProcessDetail"
import { formatSize, humanBytes } from "../domain/Size"
import { commandText } from "./commandText"
import { statusColor } from "./processTable"
import { columns, style } from "./style"

const none = "-"

/** `12s ago`, `3m ago`, `2h ago` from an ISO time. */
export const ago = (iso: string, now: number): string => {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (!Number.isFinite(seconds)) return iso
  if (seconds < 120) return `${seconds}s ago`
  if (seconds < 7200) return `${Math.round(seconds / 60)}m ago`
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h ago`
  return `${Math.round(seconds / 86_400)}d ago`
}

/** One line about a row's health check: `http <url>: healthy, checked 3s ago in 12 ms`. */
export const healthLine = (health: ProcessDetail["health_check"], now: number): string => {
  if (!health.enabled) return health.check_type === null ? "no check" : `${health.check_type} check disabled`
  const target = health.url === null ? "" : ` ${health.url}`
  const result = health.status ?? "unknown"
  const painted =
    result === "healthy"
      ? style.green(process.stdout)(result)
      : result === "unhealthy"
        ? style.red(process.stdout)(result)
        : style.yellow(process.stdout)(result)
  const when = health.last_check === null ? "not checked yet" : `checked ${ago(health.last_check, now)}`
  const took = health.response_time === null ? "" : ` in ${health.response_time} ms`
  return `${health.check_type ?? "check"}${target}: ${painted}, ${when}${took}`
}

/** An ISO time as the local time the schedule is written in, with its offset. */
const localTime = (iso: string | null): string => (iso === null ? "unknown" : formatLocal(new Date(iso)))

export const formatLocal = (date: Date): string => {
  const pad = (n: number) => String(Math.abs(n)).padStart(2, "0")
  const offset = -date.getTimezoneOffset()
  const zone = `${offset < 0 ? "-" : "+"}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())} ${zone}`
}

/** `code 3, 2m ago`, `signal SIGKILL, 5s ago`, or `-` while no process has ended. */
export const lastExitText = (exit: ProcessDetail["last_exit"], now: number): string => {
  if (exit === null) return none
  const how = exit.signal !== null ? `signal ${exit.signal}` : `code ${exit.code ?? "unknown"}`
  return exit.at === null ? how : `${how}, ${ago(exit.at, now)} (${localTime(exit.at)})`
}

export const renderProcessDetail = (detail: ProcessDetail, now: number): string => {
  const out = process.stdout
  const config = detail.config
  const env = Object.entries(config.env).map(([k, v]) => `${k}=${v}`)
  const running = detail.pid !== null
  const rows: Array<[string, string]> = [
    [
      "status",
      statusColor(detail.status)(detail.status) +
        (detail.waiting_for === null ? "" : ` (waiting for ${detail.waiting_for})`)
    ],
    ["pid", detail.pid === null ? none : String(detail.pid)],
    ["port", detail.port ?? none],
    ["cpu", running ? `${detail.cpu_usage.toFixed(1)}%` : none],
    ["memory", detail.memory_usage === 0 ? none : humanBytes(detail.memory_usage)],
    ["uptime", running ? detail.uptime : none],
    ["restarts", String(detail.restarts)],
    ["last exit", lastExitText(detail.last_exit, now)],
    ["health", healthLine(detail.health_check, now)],
    [
      "instances",
      `${config.instances} (ids ${detail.app_instances.join(", ")})${config.exec_mode === "cluster" ? ", cluster mode: workers of one Node cluster primary" : ""}`
    ],
    ["config file", config.config_file ?? "none (started from the command line)"],
    ["command", commandText(config.shell, config.script, config.args)],
    ...(config.shell === null
      ? []
      : [["shell", `${config.shell} (script is a command line, not a file)`] satisfies [string, string]]),
    ["config port", config.port ?? none],
    ["max_memory_restart", config.max_memory_restart === null ? none : formatSize(config.max_memory_restart)],
    ["env", env.length === 0 ? none : env[0]!],
    ...env.slice(1).map((line): [string, string] => ["", line]),
    ["depends_on", config.depends_on.length === 0 ? none : config.depends_on.map(describeDependency).join(", ")],
    ...(config.ready_log_line === null ? [] : [["ready_log_line", config.ready_log_line] satisfies [string, string]]),
    ["autorestart", config.autorestart ? "yes" : "no (an exit leaves it stopped or errored)"],
    ["watch", config.watch.enabled ? config.watch.paths.join(", ") : "no"],
    ...(config.watch.enabled && config.watch.ignore.length > 0
      ? [["ignore_watch", config.watch.ignore.join(", ")] satisfies [string, string]]
      : []),
    [
      "cron_restart",
      detail.cron_restart === null
        ? none
        : `${detail.cron_restart.schedule} (next ${localTime(detail.cron_restart.next_run)})`
    ],
    ["out log", detail.logs.out_file],
    ["err log", detail.logs.error_file]
  ]
  const heading = `${style.bold(out)(detail.name)} ${style.dim(out)(`id ${detail.id}, instance ${detail.instance}, namespace ${detail.namespace}`)}`
  return [heading, ...columns(rows.map(([k, v]) => [style.dim(out)(k), v])).map((line) => `  ${line}`)].join("\n")
}
