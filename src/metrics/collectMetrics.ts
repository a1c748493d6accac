/**
 * Every family of `GET /metrics` (docs/metrics.md), from the engine's read paths: the rows and
 * their state as `pmfx list` shows them (the last sample of the metrics sampler: nothing is
 * measured here), the log counters, the API's traffic and the daemon's own figures.
 */
import { Clock, Effect } from "effect"
import packageJson from "../../package.json"
import { HealthStatus } from "../domain/ProcessSummary"
import { processStatuses } from "../domain/ProcessStatus"
import type { LogCounts } from "../logs/LogCounts"
import type { RowState } from "../supervisor/Row"
import type { Figures } from "../supervisor/RowMetrics"
import type { ApiTraffic } from "./ApiTraffic"
import type { DaemonSelf } from "./daemonSelf"
import type { Family, Labels, Sample } from "./Exposition"

/** One row as the metrics see it. */
export interface MetricsRow {
  readonly name: string
  readonly namespace: string
  readonly instance: number
  readonly state: RowState
  /** Its process's CPU and memory at the last sample (0 without a live process). */
  readonly figures: Figures
}

export interface MetricsInputs {
  readonly rows: ReadonlyArray<MetricsRow>
  readonly logCounts: LogCounts
  readonly traffic: Pick<ApiTraffic, "requests" | "openWebSockets">
  readonly self: DaemonSelf
  /** Lines lost because a log file could not be written (`GET /health`'s `logs.dropped_lines`). */
  readonly droppedLogLines: number
}

/** One label object per value, shared by every instance (the writer renders each once per scrape). */
const statusLabels = processStatuses.map((status) => ({ status, labels: { status } }))
const healthLabels = HealthStatus.literals.map((health) => ({ health, labels: { health } }))
const streamLabels = { out: { stream: "out" }, err: { stream: "err" } } as const

const labelsOf = (row: { readonly name: string; readonly namespace: string; readonly instance: number }): Labels => ({
  name: row.name,
  namespace: row.namespace,
  instance: String(row.instance)
})

/** The families, in the order of docs/metrics.md. */
export const collectMetrics = (inputs: MetricsInputs): Effect.Effect<ReadonlyArray<Family>> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const { self } = inputs
    // One label object per instance, shared by all its series.
    const rows = inputs.rows.map((row) => ({ row, labels: labelsOf(row) }))
    const byKey = new Map(
      rows.map((entry) => [`${entry.row.namespace}\u0000${entry.row.name}\u0000${entry.row.instance}`, entry.labels])
    )
    const logRows = inputs.logCounts.snapshot((namespace, name, instance) =>
      byKey.has(`${namespace}\u0000${name}\u0000${instance}`)
    )
    const logSamples = (value: (row: (typeof logRows)[number]) => number): ReadonlyArray<Sample> =>
      logRows.map((row) => ({
        labels: byKey.get(`${row.namespace}\u0000${row.name}\u0000${row.instance}`)!,
        extra: streamLabels[row.stream],
        value: value(row)
      }))
    const perRow = (value: (row: MetricsRow) => number): ReadonlyArray<Sample> =>
      rows.map(({ row, labels }) => ({ labels, value: value(row) }))
    return [
      {
        name: "pmfx_process_cpu_percent",
        help: "CPU of the instance's process tree, in percent of one core, at the last sample (pmfx list's cpu).",
        type: "gauge",
        samples: perRow((row) => row.figures.cpu)
      },
      {
        name: "pmfx_process_memory_bytes",
        help: "Resident memory of the instance's process tree, in bytes, at the last sample (pmfx list's memory).",
        type: "gauge",
        samples: perRow((row) => row.figures.memory)
      },
      {
        name: "pmfx_process_restarts_total",
        help: "Restarts of the instance (pmfx list's restarts; pmfx reset sets it back to 0).",
        type: "counter",
        samples: perRow((row) => row.state.restarts)
      },
      {
        name: "pmfx_process_errors_total",
        help: "Abnormal exits of the instance: a non-zero exit code or a signal nobody asked for.",
        type: "counter",
        samples: perRow((row) => row.state.errors)
      },
      {
        name: "pmfx_process_uptime_seconds",
        help: "Seconds since the instance's current process started; 0 while none runs.",
        type: "gauge",
        samples: perRow((row) =>
          row.state.pid !== null && row.state.startedAt !== null ? Math.max(0, now - row.state.startedAt) / 1000 : 0
        )
      },
      {
        name: "pmfx_process_status",
        help: "The instance's state, one-hot: 1 for its current status label, 0 for the others.",
        type: "gauge",
        samples: rows.flatMap(({ row, labels }) =>
          statusLabels.map((status) => ({
            labels,
            extra: status.labels,
            value: row.state.status === status.status ? 1 : 0
          }))
        )
      },
      {
        name: "pmfx_process_health_status",
        help: "The instance's health check result, one-hot by the health label (none: the app has no health check; unknown: not checked yet).",
        type: "gauge",
        samples: rows.flatMap(({ row, labels }) =>
          healthLabels.map((health) => ({
            labels,
            extra: health.labels,
            value: row.state.health.status === health.health ? 1 : 0
          }))
        )
      },
      {
        name: "pmfx_process_log_lines_total",
        help: "Lines the instance wrote to the stream (stdout: out, stderr: err) since the daemon started.",
        type: "counter",
        samples: logSamples((row) => row.lines)
      },
      {
        name: "pmfx_process_log_bytes_total",
        help: "Bytes the instance wrote to the stream (stdout: out, stderr: err) since the daemon started, before timestamps are added.",
        type: "counter",
        samples: logSamples((row) => row.bytes)
      },
      {
        name: "pmfx_log_dropped_lines_total",
        help: "Log lines lost since the daemon started because a log file could not be written (a full disk).",
        type: "counter",
        samples: [{ labels: {}, value: inputs.droppedLogLines }]
      },
      {
        name: "pmfx_daemon_info",
        help: "Always 1; the version label is the daemon's pmfx version.",
        type: "gauge",
        samples: [{ labels: { version: packageJson.version }, value: 1 }]
      },
      {
        name: "pmfx_daemon_start_time_seconds",
        help: "When the daemon started, in seconds since the Unix epoch.",
        type: "gauge",
        samples: [{ labels: {}, value: self.startTimeSeconds }]
      },
      {
        name: "pmfx_daemon_cpu_seconds_total",
        help: "CPU time (user + system) the daemon process has used, in seconds.",
        type: "counter",
        samples: [{ labels: {}, value: self.cpuSeconds }]
      },
      {
        name: "pmfx_daemon_memory_bytes",
        help: "Resident memory (RSS) of the daemon process, in bytes.",
        type: "gauge",
        samples: [{ labels: {}, value: self.residentBytes }]
      },
      {
        name: "pmfx_daemon_event_loop_lag_seconds",
        help: "Event-loop lag probed at this scrape: how long a callback queued by the scrape waited to run.",
        type: "gauge",
        samples: [{ labels: {}, value: self.loopLagSeconds }]
      },
      {
        name: "pmfx_daemon_event_loop_busy_seconds_total",
        help: "Time the daemon's event loop spent running code rather than waiting; its rate is the loop's utilisation.",
        type: "counter",
        samples: [{ labels: {}, value: self.loopActiveSeconds }]
      },
      {
        name: "pmfx_daemon_websocket_connections",
        help: "WebSocket sessions (/ws) open now, on every listener.",
        type: "gauge",
        samples: [{ labels: {}, value: inputs.traffic.openWebSockets() }]
      },
      {
        name: "pmfx_daemon_http_requests_total",
        help: "HTTP requests answered by the daemon (socket and TCP), by method, route template and status code.",
        type: "counter",
        samples: inputs.traffic.requests().map((entry) => ({
          labels: { method: entry.method, route: entry.route, status: String(entry.status) },
          value: entry.count
        }))
      }
    ] satisfies ReadonlyArray<Family>
  })
