/**
 * A line of a log file read back into its parts. Our JSON objects (see `formatLine`) are recognised
 * by their fixed opening `{"timestamp":"` whatever the app's current `log_type`, and anything else
 * is a text line, so a file written before the user switched `log_type` still reads right.
 */
import type { AppDefinition } from "../domain/AppDefinition"
import type { LogStream } from "./LogEntry"
import { type ParsedTextLine, textLineParser } from "./TimestampPattern"

export interface StoredLine {
  /** ISO 8601 UTC, or null when the line carries none. */
  readonly timestamp: string | null
  /** Epoch milliseconds of `timestamp`; NaN when it is null. */
  readonly ms: number
  /** Null when the file is shared by several instances and the line does not say which. */
  readonly instance: number | null
  readonly stream: LogStream
  readonly message: string
  /** Set on a continuation record: a later piece of a line over `max_line_length`. */
  readonly continued?: true
}

/** Where a file's lines come from, for lines that do not say it themselves. */
export interface LineSource {
  readonly stream: LogStream
  readonly instance: number | null
}

const JSON_OPENING = '{"timestamp":"'

const fromJson = (line: string): StoredLine | null => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return null
  }
  if (typeof value !== "object" || value === null) return null
  const { timestamp, instance, stream, message, continued } = value as Record<string, unknown>
  if (typeof timestamp !== "string" || typeof message !== "string" || (stream !== "out" && stream !== "err"))
    return null
  const ms = Date.parse(timestamp)
  return {
    timestamp: Number.isNaN(ms) ? null : new Date(ms).toISOString(),
    ms,
    instance: typeof instance === "number" && Number.isInteger(instance) ? instance : null,
    stream,
    message,
    ...(continued === true ? { continued } : {})
  }
}

export const storedLineParser = (
  app: Pick<AppDefinition, "log_date_format">,
  source: LineSource
): ((line: string) => StoredLine) => {
  const text = textLineParser(app.log_date_format)
  const fromText = (line: string): StoredLine => {
    const parsed: ParsedTextLine = text(line)
    return { ...parsed, instance: source.instance, stream: source.stream }
  }
  return (line) => (line.startsWith(JSON_OPENING) ? (fromJson(line) ?? fromText(line)) : fromText(line))
}
