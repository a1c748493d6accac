/**
 * How one line is stored (DESIGN §6). Text: `<timestamp> <message>` (or the bare message with
 * `log_date_format: "none"`). JSON: `{"timestamp","app","instance","stream","message"}` with an ISO
 * UTC timestamp whatever `log_date_format` says: a JSON line is for machines, and the reader needs
 * one unambiguous instant. The key order is fixed, so the reader can recognise our own objects.
 */
import { type AppDefinition, ISO_DATE_FORMAT } from "../domain/AppDefinition"
import type { LogStream } from "./LogEntry"
import { timestampFormatter } from "./TimestampPattern"

type LogFormatSettings = Pick<AppDefinition, "name" | "log_type" | "log_date_format">

/** Renders one stored line, newline included. `ms` is the arrival time of the line. */
export type LineFormatter = (message: string, ms: number, stream: LogStream, instance: number) => string

export const lineFormatter = (app: LogFormatSettings): LineFormatter => {
  if (app.log_type === "json") {
    const iso = timestampFormatter(ISO_DATE_FORMAT)!
    // The app name never changes, so encode it once.
    const appJson = JSON.stringify(app.name)
    return (message, ms, stream, instance) =>
      `{"timestamp":"${iso(ms)}","app":${appJson},"instance":${instance},"stream":"${stream}","message":${JSON.stringify(message)}}\n`
  }
  const stamp = timestampFormatter(app.log_date_format)
  if (stamp === null) return (message) => `${message}\n`
  return (message, ms) => `${stamp(ms)} ${message}\n`
}

const NO_PREFIX = Buffer.alloc(0)

/**
 * For text logs, the bytes stored before each message (`"<timestamp> "`, or nothing), so the hot
 * path can copy a line's bytes without decoding them; null for JSON logs, whose lines must be
 * decoded to be escaped. Cached for the last millisecond: a burst of lines shares one arrival time.
 */
export const textPrefix = (app: LogFormatSettings): ((ms: number) => Buffer) | null => {
  if (app.log_type === "json") return null
  const stamp = timestampFormatter(app.log_date_format)
  if (stamp === null) return () => NO_PREFIX
  let lastMs = Number.NaN
  let last = NO_PREFIX
  return (ms) => {
    if (ms !== lastMs) {
      last = Buffer.from(`${stamp(ms)} `, "utf8")
      lastMs = ms
    }
    return last
  }
}
