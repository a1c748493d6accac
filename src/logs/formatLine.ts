/**
 * How one line is stored (docs/architecture.md §7). Text: `<timestamp> <message>` (or the bare message with
 * `log_date_format: "none"`). JSON: `{"timestamp","app","instance","stream","message"}` with an ISO
 * UTC timestamp whatever `log_date_format` says: a JSON line is for machines, and the reader needs
 * one unambiguous instant. The key order is fixed, so the reader can recognise our own objects.
 *
 * A line over `max_line_length` is stored as several records (see `LineSplitter`); every record
 * after the first is marked as continuing the one before and carries the first one's timestamp:
 * text `<timestamp>+ <piece>` (a `+` straight after the timestamp, where a whole line has a space),
 * JSON a last key `"continued":true`. Without a timestamp prefix (`"none"`) a text file has no
 * place for the mark: the pieces are stored as plain lines.
 */
import { type AppDefinition, ISO_DATE_FORMAT } from "../domain/AppDefinition"
import type { LogStream } from "./LogEntry"
import { timestampFormatter } from "./TimestampPattern"

/** What follows the timestamp of a continuation record, before the usual space. */
export const CONTINUED_MARK = "+"

type LogFormatSettings = Pick<AppDefinition, "name" | "log_type" | "log_date_format">

/**
 * Renders one stored line, newline included. `ms` is the arrival time of the line (of its first
 * piece, for a `continued` piece).
 */
export type LineFormatter = (
  message: string,
  ms: number,
  stream: LogStream,
  instance: number,
  continued?: boolean
) => string

export const lineFormatter = (app: LogFormatSettings): LineFormatter => {
  if (app.log_type === "json") {
    const iso = timestampFormatter(ISO_DATE_FORMAT)!
    // The app name never changes, so encode it once.
    const appJson = JSON.stringify(app.name)
    return (message, ms, stream, instance, continued) =>
      `{"timestamp":"${iso(ms)}","app":${appJson},"instance":${instance},"stream":"${stream}","message":${JSON.stringify(message)}${continued === true ? ',"continued":true' : ""}}\n`
  }
  const stamp = timestampFormatter(app.log_date_format)
  if (stamp === null) return (message) => `${message}\n`
  return (message, ms, _stream, _instance, continued) =>
    `${stamp(ms)}${continued === true ? CONTINUED_MARK : ""} ${message}\n`
}

const NO_PREFIX = Buffer.alloc(0)

/**
 * For text logs, the bytes stored before each message (`"<timestamp> "`, or nothing), so the hot
 * path can copy a line's bytes without decoding them; null for JSON logs, whose lines must be
 * decoded to be escaped. Cached for the last millisecond: a burst of lines shares one arrival time.
 * With `continued`, the prefix of a continuation record (`"<timestamp>+ "`), not cached: rare.
 */
export const textPrefix = (app: LogFormatSettings): ((ms: number, continued?: boolean) => Buffer) | null => {
  if (app.log_type === "json") return null
  const stamp = timestampFormatter(app.log_date_format)
  if (stamp === null) return () => NO_PREFIX
  let lastMs = Number.NaN
  let last = NO_PREFIX
  return (ms, continued) => {
    if (continued === true) return Buffer.from(`${stamp(ms)}${CONTINUED_MARK} `, "utf8")
    if (ms !== lastMs) {
      last = Buffer.from(`${stamp(ms)} `, "utf8")
      lastMs = ms
    }
    return last
  }
}
