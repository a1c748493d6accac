/** Everything that happens in the engine, as typed events on the `EventBus` (docs/architecture.md §9). */
import type { WebhookEvent } from "../domain/AppDefinition"
import type { HealthStatus } from "../domain/ProcessSummary"
import type { ProcessStatus } from "../domain/ProcessStatus"
import type { LogEntry } from "../logs/LogEntry"

export interface RowRef {
  readonly id: number
  readonly name: string
  readonly instance: number
}

export type PmfxEvent =
  | (RowRef & {
      readonly _tag: "ProcessStatus"
      readonly status: ProcessStatus
      readonly previous_status: ProcessStatus
      readonly pid: number | null
      readonly exit_code?: number | null
      readonly signal?: string | null
    })
  | (RowRef & {
      readonly _tag: "ProcessRestart"
      /** Why: a crash, a manual restart or reload, memory above the limit, a failed health check, a watched file. */
      readonly reason: "crash" | "manual" | "reload" | "memory" | "health" | "watch" | "cron"
      readonly restarts: number
    })
  | (RowRef & {
      readonly _tag: "ProcessExit"
      readonly pid: number
      readonly exit_code: number | null
      readonly signal: string | null
      /** Exited on its own with a non-zero code or a signal (not asked to stop). */
      readonly abnormal: boolean
      readonly uptime_ms: number
    })
  | (RowRef & {
      readonly _tag: "HealthChanged"
      readonly status: HealthStatus
      readonly previous_status: HealthStatus
      readonly failures: number
      readonly detail: string
    })
  | (RowRef & { readonly _tag: "MemoryLimit"; readonly memory: number; readonly limit: number })
  | {
      readonly _tag: "MetricsSample"
      readonly timestamp: string
      readonly processes: ReadonlyArray<
        RowRef & { readonly pid: number | null; readonly cpu_usage: number; readonly memory_usage: number }
      >
    }
  | (RowRef & { readonly _tag: "LogLine"; readonly entry: LogEntry })
  /** Apps were added or removed, or what the user wants of some rows changed (persist it). */
  | { readonly _tag: "TableChanged" }
  /** A built-in alert condition fired (`Alerts`); webhooks deliver these. */
  | (RowRef & {
      readonly _tag: "Alert"
      readonly kind: AlertKind
      readonly message: string
      readonly data: Readonly<Record<string, unknown>>
      readonly timestamp: string
    })

/** The alert kinds (docs/architecture.md §9); the same names a webhook lists in `events`. */
export type AlertKind = WebhookEvent

export type PmfxEventTag = PmfxEvent["_tag"]
