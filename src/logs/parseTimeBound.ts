/**
 * The `since` / `until` values of a log query: an ISO 8601 date or date-time, or a relative
 * `<n><unit>` meaning that long before `now` (`30s`, `10m`, `2h`, `1d`, also `500ms`, `1w`, and an
 * optional ` ago`). A date or date-time without an offset is the daemon's local time, as people
 * type it (`2026-11-21` is local midnight); `Z` or `+01:00` pins it.
 */
import { Option } from "effect"

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000
}

const RELATIVE = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)(?:\s+ago)?$/i
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** Epoch milliseconds of `text` relative to `now` (epoch ms); none when it is neither form. */
export const parseTimeBound = (text: string, now: number): Option.Option<number> => {
  const trimmed = text.trim()
  const relative = RELATIVE.exec(trimmed)
  if (relative !== null)
    return Option.some(now - Math.round(Number(relative[1]) * UNIT_MS[relative[2]!.toLowerCase()]!))
  const iso = ISO.exec(trimmed)
  if (iso === null) return Option.none()
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(iso[i] ?? "0")) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const ms = Number((iso[7] ?? "0").padEnd(3, "0").slice(0, 3))
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) {
    return Option.none()
  }
  const zone = iso[8]
  if (zone === undefined) return Option.some(new Date(year, month - 1, day, hour, minute, second, ms).getTime())
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms)
  if (zone.toUpperCase() === "Z") return Option.some(utc)
  const digits = zone.slice(1).replace(":", "").padEnd(4, "0")
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))
  if (offsetMinutes > 18 * 60) return Option.none()
  return Option.some(utc - (zone.startsWith("-") ? -1 : 1) * offsetMinutes * 60_000)
}
