/**
 * A process row's figures as `pmfx list` writes them (cli/processTable.ts), for the table and the
 * process page (docs/dashboard.md, "Processes"): the dashboard's "no value" is "–" where the CLI's is "-".
 */
import { shortUptime } from "../shared/uptime"
import { bytes } from "./dom"
import type { Row } from "./live"

/** Without a pid (stopped, errored) the daemon has zeroed CPU; 0.0% then, as the CLI prints it. */
export const cpuText = (r: Row): string => `${(r.pid === null ? 0 : r.cpu_usage).toFixed(1)}%`
export const memoryText = (r: Row): string => (r.pid === null || r.memory_usage === 0 ? "–" : bytes(r.memory_usage))
export const uptimeText = (r: Row): string => (r.pid === null ? "–" : shortUptime(r.uptime))
export const healthText = (r: Row): string => (r.health_status === "none" ? "–" : r.health_status)
