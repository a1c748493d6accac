/**
 * A line's level (docs/architecture.md §7): a JSON line's `level`/`severity` field, else a leading or bracketed
 * level word, else `error` for stderr and `info` for stdout.
 */
import type { LogLevel, LogStream } from "./LogEntry"

/** Most severe first; `levelRank(a) < levelRank(b)` means `a` is more severe. */
export const LEVELS: ReadonlyArray<LogLevel> = ["fatal", "error", "warn", "info", "debug", "trace"]

export const levelRank = (level: LogLevel): number => LEVELS.indexOf(level)

/** Whether `level` is `threshold` or more severe (the reader's `level` filter). */
export const atLeast = (level: LogLevel, threshold: LogLevel): boolean => levelRank(level) <= levelRank(threshold)

const NAMES: Record<string, LogLevel> = {
  fatal: "fatal",
  critical: "fatal",
  crit: "fatal",
  emerg: "fatal",
  emergency: "fatal",
  alert: "fatal",
  panic: "fatal",
  error: "error",
  err: "error",
  warn: "warn",
  warning: "warn",
  info: "info",
  information: "info",
  notice: "info",
  log: "info",
  debug: "debug",
  trace: "trace",
  verbose: "trace"
}

/** pino and bunyan numbers: 10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal. */
const fromNumber = (n: number): LogLevel =>
  n >= 60 ? "fatal" : n >= 50 ? "error" : n >= 40 ? "warn" : n >= 30 ? "info" : n >= 20 ? "debug" : "trace"

const fromField = (value: unknown): LogLevel | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return fromNumber(value)
  if (typeof value !== "string") return undefined
  const name = NAMES[value.trim().toLowerCase()]
  if (name !== undefined) return name
  return /^\d+$/.test(value.trim()) ? fromNumber(Number(value)) : undefined
}

const fromJson = (message: string): LogLevel | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(message)
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
  const record = parsed as Record<string, unknown>
  return fromField(record.level) ?? fromField(record.severity)
}

const WORDS = "FATAL|CRITICAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE"
/** `ERROR x`, `warn: x`, but not `Errors were…` or `information`. */
const LEADING = new RegExp(`^\\s*(${WORDS})(?![\\w-])`, "i")
/** `[warn] x`, `2024-01-01 12:00:00 [INFO] x`, `<error> x`, `(debug) x`, near the start of the line. */
const BRACKETED = new RegExp(`[[(<]\\s*(${WORDS})\\s*[\\])>]`, "i")
/** Only the head of a line is searched for a bracketed word: a level is written first, not in a message body. */
const HEAD = 120

export const detectLevel = (message: string, stream: LogStream): LogLevel => {
  if (message.trimStart().startsWith("{")) {
    const level = fromJson(message)
    if (level !== undefined) return level
  }
  const word = LEADING.exec(message) ?? BRACKETED.exec(message.length > HEAD ? message.slice(0, HEAD) : message)
  if (word !== null) return NAMES[word[1]!.toLowerCase()] ?? (stream === "err" ? "error" : "info")
  return stream === "err" ? "error" : "info"
}
