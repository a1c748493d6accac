/** The process table people read (README "The CLI" columns): ID, Name, Status, PID, Port, CPU, Memory, Uptime, Restarts. */
import type { ProcessSummary } from "../domain/ProcessSummary"
import { humanBytes } from "../shared/humanBytes"
import { shortUptime } from "../shared/uptime"
import { columns, style } from "./style"

/** The color of a status word on stdout: green online, red errored, dim stopped, yellow in between. */
export const statusColor = (status: ProcessSummary["status"]) =>
  status === "online"
    ? style.green(process.stdout)
    : status === "errored"
      ? style.red(process.stdout)
      : status === "stopped"
        ? style.dim(process.stdout)
        : style.yellow(process.stdout)

export const renderProcessTable = (rows: ReadonlyArray<ProcessSummary>): string => {
  if (rows.length === 0) return style.dim(process.stdout)("no processes: start one with `pmfx start <command|file>`")
  const header = [
    "ID",
    "Name",
    "Namespace",
    "Status",
    "PID",
    "Port",
    "CPU",
    "Memory",
    "Uptime",
    "Restarts",
    "Health"
  ].map((h) => style.bold(process.stdout)(h))
  const body = rows.map((row) => [
    String(row.id),
    row.name,
    row.namespace,
    statusColor(row.status)(row.status),
    row.pid === null ? "-" : String(row.pid),
    row.port ?? "-",
    `${row.cpu_usage.toFixed(1)}%`,
    row.memory_usage === 0 ? "-" : humanBytes(row.memory_usage),
    row.pid === null ? "-" : shortUptime(row.uptime),
    String(row.restarts),
    row.health_status === "none" ? "-" : row.health_status
  ])
  return columns([header, ...body]).join("\n")
}
