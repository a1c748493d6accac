/**
 * The `log_date_format` pattern of a text log line's timestamp prefix, both ways: rendering it when
 * a line is stored and recognising it when the line is read back (docs/configuration.md
 * "log_date_format").
 *
 * The default pattern (`ISO_DATE_FORMAT`) is ISO 8601 in UTC, exactly `Date#toISOString()`.
 * Any other pattern is rendered by dayjs in the daemon's local time, with the moment tokens PM2's
 * patterns are written in (`YYYY YY M MM MMM MMMM D DD Do d dd ddd dddd H HH h hh k kk m mm s ss
 * SSS A a Z ZZ X x Q`); text in `[brackets]` is literal. `"none"` means no prefix at all.
 */
import dayjs from "dayjs"
import advancedFormat from "dayjs/plugin/advancedFormat"
import { ISO_DATE_FORMAT } from "../domain/AppDefinition"

dayjs.extend(advancedFormat)

export const NO_TIMESTAMP = "none"

// Longest first, so `YYYY` wins over `YY` and `Do` over `D`.
const TOKENS = [
  "YYYY",
  "YY",
  "MMMM",
  "MMM",
  "MM",
  "M",
  "Do",
  "DD",
  "D",
  "dddd",
  "ddd",
  "dd",
  "d",
  "HH",
  "H",
  "hh",
  "h",
  "kk",
  "k",
  "mm",
  "m",
  "ss",
  "s",
  "SSS",
  "ZZ",
  "Z",
  "A",
  "a",
  "X",
  "x",
  "Q"
] as const
type Token = (typeof TOKENS)[number]
type Part = { readonly token: Token } | { readonly literal: string }

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

/** Stands for the milliseconds in a pattern rendered once per second (a character no pattern holds). */
const MILLIS = "\u0000"

/** The pattern for dayjs: literals escaped in `[…]`, each `SSS` turned into the MILLIS marker that each line's milliseconds replace. */
const perSecondPattern = (parts: ReadonlyArray<Part>): string =>
  parts.map((p) => ("literal" in p ? `[${p.literal}]` : p.token === "SSS" ? `[${MILLIS}]` : p.token)).join("")

/**
 * Renders epoch milliseconds with the pattern; null for `"none"`. Lines arrive in bursts and a
 * dayjs `format` costs microseconds, so dayjs renders each second once: the milliseconds (`SSS`)
 * are filled into that second's text, and the last result is kept while the millisecond stays the
 * same. (Only `x`, the Unix milliseconds, is rendered per millisecond.)
 */
export const timestampFormatter = (pattern: string): ((ms: number) => string) | null => {
  if (pattern === NO_TIMESTAMP) return null
  let lastMs = Number.NaN
  let last = ""
  if (pattern === ISO_DATE_FORMAT) {
    return (ms) => {
      if (ms !== lastMs) {
        last = new Date(ms).toISOString()
        lastMs = ms
      }
      return last
    }
  }
  const parts = tokenize(pattern)
  if (parts.some((p) => "token" in p && p.token === "x")) return (ms) => dayjs(ms).format(pattern)
  const secondPattern = perSecondPattern(parts)
  let lastSecond = Number.NaN
  let pieces: ReadonlyArray<string> = []
  return (ms) => {
    if (ms === lastMs) return last
    const second = Math.floor(ms / 1000)
    if (second !== lastSecond) {
      pieces = dayjs(second * 1000)
        .format(secondPattern)
        .split(MILLIS)
      lastSecond = second
    }
    last = pieces.length === 1 ? pieces[0]! : pieces.join(String(ms - second * 1000).padStart(3, "0"))
    lastMs = ms
    return last
  }
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december"
]

const TOKEN_REGEX: Record<Token, string> = {
  YYYY: "(\\d{4})",
  YY: "(\\d{2})",
  MMMM: "([A-Za-z]+)",
  MMM: "([A-Za-z]{3})",
  MM: "(\\d{2})",
  M: "(\\d{1,2})",
  Do: "(\\d{1,2})(?:st|nd|rd|th)",
  DD: "(\\d{2})",
  D: "(\\d{1,2})",
  dddd: "([A-Za-z]+)",
  ddd: "([A-Za-z]{3})",
  dd: "([A-Za-z]{2})",
  d: "(\\d)",
  HH: "(\\d{2})",
  H: "(\\d{1,2})",
  hh: "(\\d{2})",
  h: "(\\d{1,2})",
  kk: "(\\d{2})",
  k: "(\\d{1,2})",
  mm: "(\\d{2})",
  m: "(\\d{1,2})",
  ss: "(\\d{2})",
  s: "(\\d{1,2})",
  SSS: "(\\d{3})",
  Z: "(Z|[+-]\\d{2}:\\d{2})",
  ZZ: "(Z|[+-]\\d{4})",
  A: "(AM|PM)",
  a: "(am|pm)",
  X: "(\\d+)",
  x: "(\\d+)",
  Q: "([1-4])"
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
      return match[2] === ""
        ? { timestamp: match[1]!, ms, message }
        : { timestamp: match[1]!, ms, message, continued: true }
    }
  }
  const parts = tokenize(pattern)
  const tokens = parts.flatMap((p) => ("token" in p ? [p.token] : []))
  const regex = new RegExp(
    `^${parts.map((p) => ("token" in p ? TOKEN_REGEX[p.token] : escapeRegex(p.literal))).join("")}(\\+?) `
  )
  const has = (...wanted: ReadonlyArray<Token>) => wanted.some((t) => tokens.includes(t))
  // An instant needs a year, a month and a day — or a Unix timestamp.
  const complete = has("X", "x") || (has("YYYY", "YY") && has("MMMM", "MMM", "MM", "M") && has("Do", "DD", "D"))
  return (line) => {
    const match = regex.exec(line)
    if (match === null) return unstamped(line)
    const message = line.slice(match[0].length)
    const mark = match[tokens.length + 1] === "" ? {} : ({ continued: true } as const)
    if (!complete) return { timestamp: null, ms: Number.NaN, message, ...mark }
    const field = (...wanted: ReadonlyArray<Token>): string | undefined => {
      for (const token of wanted) {
        const index = tokens.indexOf(token)
        if (index !== -1) return match[index + 1]
      }
      return undefined
    }
    const num = (...wanted: ReadonlyArray<Token>): number => Number(field(...wanted) ?? "0")
    let ms: number
    const unixMs = field("x")
    const unixSeconds = field("X")
    if (unixMs !== undefined) ms = Number(unixMs)
    else if (unixSeconds !== undefined) ms = Number(unixSeconds) * 1000 + num("SSS")
    else {
      const yearText = field("YYYY")
      const year = yearText !== undefined ? Number(yearText) : 2000 + num("YY")
      const monthName = field("MMMM", "MMM")?.toLowerCase()
      const month = monthName !== undefined ? MONTHS.findIndex((m) => m.startsWith(monthName)) : num("MM", "M") - 1
      // 12-hour clock with AM/PM (without it, h is taken as it reads); k counts 1–24.
      const half = field("A", "a")?.toLowerCase()
      const hour =
        field("HH", "H") !== undefined
          ? num("HH", "H")
          : field("kk", "k") !== undefined
            ? num("kk", "k") % 24
            : half === undefined
              ? num("hh", "h")
              : (num("hh", "h") % 12) + (half === "pm" ? 12 : 0)
      const parts = [year, month, num("Do", "DD", "D"), hour, num("mm", "m"), num("ss", "s"), num("SSS")] as const
      const zone = field("Z", "ZZ")
      if (month < 0) ms = Number.NaN
      else if (zone === undefined) ms = new Date(...parts).getTime()
      else {
        const sign = zone.startsWith("-") ? -1 : 1
        const digits = zone === "Z" ? "0000" : zone.slice(1).replace(":", "")
        ms = Date.UTC(...parts) - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
      }
    }
    return Number.isNaN(ms)
      ? { timestamp: null, ms: Number.NaN, message, ...mark }
      : { timestamp: new Date(ms).toISOString(), ms, message, ...mark }
  }
}
