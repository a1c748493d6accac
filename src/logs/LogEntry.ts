/** One log line as the reader, the follow stream and the API give it (docs/architecture.md §7, docs/api.md). */
import { Schema } from "effect"

export const LogStream = Schema.Literal("out", "err")
export type LogStream = typeof LogStream.Type

export const LogLevel = Schema.Literal("fatal", "error", "warn", "info", "debug", "trace")
export type LogLevel = typeof LogLevel.Type

export const LogEntry = Schema.Struct({
  /** ISO 8601 UTC; null when the line carries no timestamp the reader can parse. */
  timestamp: Schema.NullOr(Schema.String),
  app: Schema.String,
  /** Null for merged logs in text form, whose lines do not say which instance wrote them. */
  instance: Schema.NullOr(Schema.Int),
  stream: LogStream,
  level: LogLevel,
  message: Schema.String,
  /**
   * Present (and true) on a later piece of a line longer than the app's `max_line_length`: the
   * message continues the previous entry's. The pieces share the first one's timestamp.
   */
  continued: Schema.optional(Schema.Literal(true))
})
export type LogEntry = typeof LogEntry.Type
