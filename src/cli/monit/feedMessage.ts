/**
 * The `/ws` messages monit reads (docs/api.md §9), as Schemas: everything from the daemon is outside
 * data. Messages of other types (`alert`, `pong`, …) and fields monit does not use are ignored.
 */
import { Schema } from "effect"
import { LogLevel, LogStream } from "../../logs/LogEntry"
import { ProcessStatus } from "../../domain/ProcessStatus"
import { ProcessSummary } from "../../domain/ProcessSummary"
import type { MonitEvent } from "./MonitState"

const Message = <T extends string, D extends Schema.Schema.Any>(type: T, data: D) =>
  Schema.Struct({ type: Schema.Literal(type), data, timestamp: Schema.String })

export const ProcessListMessage = Message("process_list", Schema.Array(ProcessSummary))

export const ProcessStatusMessage = Message(
  "process_status",
  Schema.Struct({
    id: Schema.Int,
    status: ProcessStatus,
    pid: Schema.NullOr(Schema.Int),
    exit_code: Schema.optional(Schema.NullOr(Schema.Int)),
    signal: Schema.optional(Schema.NullOr(Schema.String))
  })
)

export const ProcessMetricsMessage = Message(
  "process_metrics",
  Schema.Struct({
    processes: Schema.Array(
      Schema.Struct({
        id: Schema.Int,
        cpu_usage: Schema.Number,
        memory_usage: Schema.Number,
        uptime: Schema.String,
        restarts: Schema.Int
      })
    )
  })
)

export const SystemMetricsMessage = Message(
  "system_metrics",
  Schema.Struct({
    cpu: Schema.Struct({ usage_percent: Schema.Number }),
    memory: Schema.Struct({ total: Schema.Number, used: Schema.Number })
  })
)

export const LogMessage = Message(
  "log",
  Schema.Struct({
    id: Schema.Int,
    timestamp: Schema.NullOr(Schema.String),
    stream: LogStream,
    level: LogLevel,
    message: Schema.String,
    continued: Schema.optional(Schema.Literal(true))
  })
)

export const ErrorMessage = Message("error", Schema.Struct({ code: Schema.String, message: Schema.String }))

export const FeedMessage = Schema.Union(
  ProcessListMessage,
  ProcessStatusMessage,
  ProcessMetricsMessage,
  SystemMetricsMessage,
  LogMessage,
  ErrorMessage
)
export type FeedMessage = typeof FeedMessage.Type

/** One text frame, parsed; undefined for a message monit has no use for (or cannot read). */
export const decodeFeedMessage = (text: string): FeedMessage | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  const decoded = Schema.decodeUnknownEither(FeedMessage)(json)
  return decoded._tag === "Right" ? decoded.right : undefined
}

/** What a feed message means to monit's state (monit/MonitState.ts). */
export const feedEvents = (message: FeedMessage): ReadonlyArray<MonitEvent> => {
  const at = Date.parse(message.timestamp)
  switch (message.type) {
    case "process_list":
      return [{ _tag: "List", rows: message.data }]
    case "process_status": {
      const { exit_code, signal } = message.data
      const exit =
        exit_code === undefined && signal === undefined ? null : { code: exit_code ?? null, signal: signal ?? null }
      return [{ _tag: "Status", id: message.data.id, status: message.data.status, pid: message.data.pid, exit, at }]
    }
    case "process_metrics":
      return [{ _tag: "Metrics", at, processes: message.data.processes }]
    case "system_metrics":
      return [
        {
          _tag: "Host",
          host: {
            cpuPercent: message.data.cpu.usage_percent,
            memoryUsed: message.data.memory.used,
            memoryTotal: message.data.memory.total
          }
        }
      ]
    case "log": {
      const { id, timestamp, stream, level, message: text } = message.data
      return [{ _tag: "Log", id, lines: [{ timestamp, stream, level, message: text }] }]
    }
    case "error":
      return [{ _tag: "ActionDone", notice: { text: `${message.data.code}: ${message.data.message}`, tone: "error" } }]
  }
}
