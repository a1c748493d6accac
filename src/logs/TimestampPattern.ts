/**
 * The `log_date_format` pattern of a text log line's timestamp prefix, both ways: rendering it when
 * a line is stored and recognising it when the line is read back.
 *
 * The default pattern (`ISO_DATE_FORMAT`) is ISO 8601 in UTC, exactly `Date#toISOString()`.
 * Any other pattern renders in the daemon's local time with the tokens `YYYY MM DD HH mm ss SSS`,
 * `Z` (offset `+01:00`) and `ZZ` (offset `+0100`); text in `[brackets]` is literal, as in
 * moment/dayjs patterns that PM2 users already have. `"none"` means no prefix at all.
 */
import { ISO_DATE_FORMAT } from "../domain/AppDefinition"

export const NO_TIMESTAMP = "none"

type Token = "YYYY" | "MM" | "DD" | "HH" | "mm" | "ss" | "SSS" | "ZZ" | "Z"
type Part = { readonly token: Token } | { readonly literal: string }

// Longest first, so `ZZ` wins over `Z`.
const TOKENS: ReadonlyArray<Token> = ["YYYY", "SSS", "MM", "DD", "HH", "mm", "ss", "ZZ", "Z"]

const tokenize = (pattern: string): ReadonlyArray<Part> => {
  const parts: Array<Part> = []
  let literal = ""
  let i = 0
  while (i < pattern.length) {
    if (pattern[i] === "[") {
      const close = pattern.indexOf("]", i + 1)
      if (close !== -1) {
        literal += pattern.slice(i + 1, close)
        i = close + 1
        continue
      }
    }
    const token = TOKENS.find((t) => pattern.startsWith(t, i))
    if (token === undefined) {
      literal += pattern[i]
      i++
      continue
    }
    if (literal !== "") parts.push({ literal })
    literal = ""
    parts.push({ token })
    i += token.length
  }
  if (literal !== "") parts.push({ literal })
  return parts
}

const pad = (n: number, width: number): string => String(n).padStart(width, "0")

const offset = (date: Date, colon: boolean): string => {
  const minutes = -date.getTimezoneOffset()
  const sign = minutes < 0 ? "-" : "+"
  const abs = Math.abs(minutes)
  return `${sign}${pad(Math.floor(abs / 60), 2)}${colon ? ":" : ""}${pad(abs % 60, 2)}`
}

const render = (date: Date, token: Token): string => {
  switch (token) {
    case "YYYY":
      return pad(date.getFullYear(), 4)
    case "MM":
      return pad(date.getMonth() + 1, 2)
    case "DD":
      return pad(date.getDate(), 2)
    case "HH":
      return pad(date.getHours(), 2)
    case "mm":
      return pad(date.getMinutes(), 2)
    case "ss":
      return pad(date.getSeconds(), 2)
    case "SSS":
      return pad(date.getMilliseconds(), 3)
    case "Z":
      return offset(date, true)
    case "ZZ":
      return offset(date, false)
  }
}

/**
 * Renders epoch milliseconds with the pattern; null for `"none"`. The result is cached for the
 * last millisecond seen, since a burst of lines shares one arrival time.
 */
export const timestampFormatter = (pattern: string): ((ms: number) => string) | null => {
  if (pattern === NO_TIMESTAMP) return null
  const parts = pattern === ISO_DATE_FORMAT ? null : tokenize(pattern)
  let lastMs = Number.NaN
  let last = ""
  return (ms) => {
    if (ms === lastMs) return last
    const date = new Date(ms)
    last = parts === null ? date.toISOString() : parts.map((p) => ("token" in p ? render(date, p.token) : p.literal)).join("")
    lastMs = ms
    return last
  }
}

const TOKEN_REGEX: Record<Token, string> = {
  YYYY: "(\\d{4})",
  MM: "(\\d{2})",
  DD: "(\\d{2})",
  HH: "(\\d{2})",
  mm: "(\\d{2})",
  ss: "(\\d{2})",
  SSS: "(\\d{3})",
  Z: "(Z|[+-]\\d{2}:\\d{2})",
  ZZ: "(Z|[+-]\\d{4})"
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A stored text line split back into its timestamp (ISO UTC, or null) and message. */
export interface ParsedTextLine {
  readonly timestamp: string | null
  /** Epoch milliseconds of `timestamp`; NaN when it is null. */
  readonly ms: number
  readonly message: string
  /** Set when the line is a continuation record (`<timestamp>+ piece`, see `formatLine`). */
  readonly continued?: true
}

const ISO_PREFIX = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)(\+?) /

const unstamped = (line: string): ParsedTextLine => ({ timestamp: null, ms: Number.NaN, message: line })

/**
 * Splits a stored text line into timestamp and message. A line whose prefix does not match the
 * pattern (written before the pattern changed, say) is all message, with no timestamp. A custom
 * pattern without year, month and day cannot name an instant, so its lines carry no timestamp.
 */
export const textLineParser = (pattern: string): ((line: string) => ParsedTextLine) => {
  if (pattern === NO_TIMESTAMP) return unstamped
  if (pattern === ISO_DATE_FORMAT) {
    return (line) => {
      const match = ISO_PREFIX.exec(line)
      if (match === null) return unstamped(line)
      const ms = Date.parse(match[1]!)
      if (Number.isNaN(ms)) return unstamped(line)
      const message = line.slice(match[0].length)
      return match[2] === "" ? { timestamp: match[1]!, ms, message } : { timestamp: match[1]!, ms, message, continued: true }
    }
  }
  const parts = tokenize(pattern)
  const tokens = parts.flatMap((p) => ("token" in p ? [p.token] : []))
  const regex = new RegExp(`^${parts.map((p) => ("token" in p ? TOKEN_REGEX[p.token] : escapeRegex(p.literal))).join("")}(\\+?) `)
  const complete = tokens.includes("YYYY") && tokens.includes("MM") && tokens.includes("DD")
  return (line) => {
    const match = regex.exec(line)
    if (match === null) return unstamped(line)
    const message = line.slice(match[0].length)
    const mark = match[tokens.length + 1] === "" ? {} : ({ continued: true } as const)
    if (!complete) return { timestamp: null, ms: Number.NaN, message, ...mark }
    const field = (token: Token): string | undefined => {
      const index = tokens.indexOf(token)
      return index === -1 ? undefined : match[index + 1]
    }
    const num = (token: Token): number => Number(field(token) ?? "0")
    const zone = field("Z") ?? field("ZZ")
    let ms: number
    if (zone === undefined) {
      ms = new Date(num("YYYY"), num("MM") - 1, num("DD"), num("HH"), num("mm"), num("ss"), num("SSS")).getTime()
    } else {
      const utc = Date.UTC(num("YYYY"), num("MM") - 1, num("DD"), num("HH"), num("mm"), num("ss"), num("SSS"))
      const sign = zone.startsWith("-") ? -1 : 1
      const digits = zone === "Z" ? "0000" : zone.slice(1).replace(":", "")
      ms = utc - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
    }
    return Number.isNaN(ms) ? { timestamp: null, ms: Number.NaN, message, ...mark } : { timestamp: new Date(ms).toISOString(), ms, message, ...mark }
  }
}
