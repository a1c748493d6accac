/**
 * The typed shape of every `/ws` message the daemon sends (docs/api.md §9), for clients written in
 * TypeScript — the dashboard (src/ui) reads the feed through these, not hand-copied shapes.
 */
import type { ProcessSummary } from "../../domain/ProcessSummary"
import type { ProcessStatus } from "../../domain/ProcessStatus"
import type { AlertKind } from "../../events/PmfxEvent"
import type { LogEntry } from "../../logs/LogEntry"
import type { SystemStats } from "../../monitor/systemStats"

interface RowRef {
  readonly id: number
  readonly name: string
  readonly instance: number
}

export interface ServerMessageData {
  readonly process_list: ReadonlyArray<ProcessSummary>
  readonly process_status: RowRef & {
    readonly status: ProcessStatus
    readonly previous_status: ProcessStatus
    readonly pid: number | null
    readonly exit_code?: number | null
    readonly signal?: string | null
  }
  readonly process_metrics: {
    readonly processes: ReadonlyArray<
      RowRef & {
        readonly cpu_usage: number
        readonly memory_usage: number
        readonly uptime: string
        readonly restarts: number
      }
    >
  }
  readonly system_metrics: SystemStats
  readonly alert: {
    readonly kind: AlertKind
    readonly process: RowRef
    readonly message: string
    readonly data: Readonly<Record<string, unknown>>
  }
  readonly log: RowRef & Pick<LogEntry, "timestamp" | "stream" | "level" | "message"> & { readonly continued?: true }
  readonly auth: { readonly authenticated: true; readonly read_only: boolean }
  readonly subscribed: { readonly channels: ReadonlyArray<"logs">; readonly ids: ReadonlyArray<number> | null }
  readonly unsubscribed: { readonly channels: ReadonlyArray<"logs">; readonly ids: null }
  readonly pong: Record<string, never>
  readonly error: {
    readonly code: string
    readonly message: string
    readonly details: Readonly<Record<string, unknown>>
  }
}

/** One message as received: `{type, data, timestamp}`. */
export type ServerMessage = {
  [T in keyof ServerMessageData]: { readonly type: T; readonly data: ServerMessageData[T]; readonly timestamp: string }
}[keyof ServerMessageData]
