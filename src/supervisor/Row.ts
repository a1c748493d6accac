/**
 * One row of the process table: an app instance with its own numeric id (docs/architecture.md §4). Its state
 * lives in a SubscriptionRef so callers can wait for a condition (`online`, `stopped`) instead of
 * polling; its supervisor fiber, when running, owns the live process.
 */
import type { Fiber, SubscriptionRef } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import type { HealthStatus } from "../domain/ProcessSummary"
import type { ProcessFamily } from "./ProcessFamily"
import type { ProcessStatus } from "../domain/ProcessStatus"
import type { RestartRequests } from "./RestartRequests"
import type { RowMetrics } from "./RowMetrics"

export interface HealthState {
  readonly status: HealthStatus
  /** ISO 8601 UTC of the last probe. */
  readonly last_check: string | null
  /** Milliseconds the last probe took. */
  readonly response_time: number | null
  /** Failed probes in a row. */
  readonly failures: number
  readonly detail: string | null
}

export interface RowState {
  /** What the user last asked for; the daemon brings back `running` rows after a restart. */
  readonly desired: "running" | "stopped"
  readonly status: ProcessStatus
  readonly pid: number | null
  /** Port assigned when the row was created; kept across restarts. */
  readonly port: number | null
  /** A `restart`/`reload --port` override for the current run (not saved in the definition). */
  readonly portOverride: number | null
  readonly restarts: number
  /** Unstable restarts in a row: exits within `min_uptime` of starting (reset by a longer run). */
  readonly unstableRestarts: number
  /** Epoch ms when the current process started. */
  readonly startedAt: number | null
  /** The FIFO pair (StdioPipes) the current process writes its stdout and stderr to. */
  readonly pipes: string | null
  /** Abnormal exits (non-zero code or a signal nobody asked for). */
  readonly errors: number
  /** How the last process ended, and when (epoch ms). */
  readonly lastExit: { readonly code: number | null; readonly signal: string | null; readonly at: number } | null
  /** Why the row is errored or could not start. */
  readonly lastError: string | null
  readonly health: HealthState
  /** A line of this run's output matched the app's `ready_log_line` (dependents waiting on `log_ready`). */
  readonly readyLine: boolean
  /** While the row waits for its `depends_on` apps: what it waits for (`db to be healthy`), else null. */
  readonly waitingFor: string | null
}

/** Why the supervisor is asked to restart a running process. */
export type RestartReason = "memory" | "health" | "watch" | "cron"

/** What an app shares between its rows. */
export interface AppRecord {
  readonly definition: AppDefinition
  /** The environment of whoever started the app (lowest precedence, docs/architecture.md §4). */
  readonly baseEnv: Readonly<Record<string, string>>
}

export interface Row {
  readonly id: number
  readonly instance: number
  /**
   * The definition the row runs. Replaced only while the row is halted or about to be restarted
   * under its app's lock (`ProcessManager.redefine`): each run reads it when it starts.
   */
  app: AppRecord
  readonly state: SubscriptionRef.SubscriptionRef<RowState>
  /** CPU, memory and their history from the sampling loop, beside the state (./RowMetrics.ts). */
  readonly metrics: RowMetrics
  /** Restart requests from the sampler, health probes and the watcher (at most one pending). */
  readonly requests: RestartRequests
  /** The supervisor fiber while the row is running. */
  fiber: Fiber.RuntimeFiber<void> | null
  /** The processes of the current run (the metrics sampler records its descendants here). */
  family?: ProcessFamily | undefined
  /**
   * Set when a reload has replaced this row object with a new one of the same id: its last
   * status changes (stopping, stopped) are not published, since the id lives on, online.
   */
  retired?: boolean
  /**
   * Set when the row leaves the table (deleted, or replaced by a reload): nothing may launch a
   * process for it any more, and its supervisor does not spawn again.
   */
  removed?: boolean
}

export const initialHealth = (hasCheck: boolean): HealthState => ({
  status: hasCheck ? "unknown" : "none",
  last_check: null,
  response_time: null,
  failures: 0,
  detail: null
})

export const initialRowState = (port: number | null, hasCheck: boolean): RowState => ({
  desired: "stopped",
  status: "stopped",
  pid: null,
  port,
  portOverride: null,
  restarts: 0,
  unstableRestarts: 0,
  startedAt: null,
  pipes: null,
  errors: 0,
  lastExit: null,
  lastError: null,
  health: initialHealth(hasCheck),
  readyLine: false,
  waitingFor: null
})

export const hasHealthCheck = (app: AppDefinition): boolean => app.health_check !== null && app.health_check.enabled
