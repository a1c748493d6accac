/**
 * The messages the daemon sends on `/ws` (docs/architecture.md §9), each `{type, data, timestamp}` as one JSON
 * text frame. Built once per event and shared by every session (see `LiveFeed`).
 */
import type { LogEntry } from "../../logs/LogEntry"
import type { PmfxEvent } from "../../events/PmfxEvent"

export type ServerMessageType =
  | "process_list"
  | "process_status"
  | "process_metrics"
  | "system_metrics"
  | "log"
  | "alert"
  | "auth"
  | "subscribed"
  | "unsubscribed"
  | "pong"
  | "error"

export const serverMessage = (
  type: ServerMessageType,
  data: unknown,
  timestamp: string = new Date().toISOString()
): string => JSON.stringify({ type, data, timestamp })

/** An `error` message: the same `code`/`message`/`details` as the HTTP API's structured errors. */
export const errorMessage = (code: string, message: string, details: Readonly<Record<string, unknown>> = {}): string =>
  serverMessage("error", { code, message, details })

type Event<Tag extends PmfxEvent["_tag"]> = Extract<PmfxEvent, { readonly _tag: Tag }>

export const processStatusMessage = (event: Event<"ProcessStatus">): string =>
  serverMessage("process_status", {
    id: event.id,
    name: event.name,
    instance: event.instance,
    status: event.status,
    previous_status: event.previous_status,
    pid: event.pid,
    ...(event.exit_code !== undefined ? { exit_code: event.exit_code } : {}),
    ...(event.signal !== undefined ? { signal: event.signal } : {})
  })

export const alertMessage = (event: Event<"Alert">): string =>
  serverMessage(
    "alert",
    {
      kind: event.kind,
      process: { id: event.id, name: event.name, instance: event.instance },
      message: event.message,
      data: event.data
    },
    event.timestamp
  )

export const logMessage = (event: Event<"LogLine">): string => {
  const entry: LogEntry = event.entry
  return serverMessage("log", {
    id: event.id,
    name: event.name,
    instance: event.instance,
    timestamp: entry.timestamp,
    stream: entry.stream,
    level: entry.level,
    message: entry.message,
    ...(entry.continued === true ? { continued: true } : {})
  })
}
