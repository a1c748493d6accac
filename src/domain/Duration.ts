/**
 * Durations as users write them: `500ms`, `10s`, `1m`, `2h`, `1d`, or a bare number.
 * A bare number is milliseconds (as PM2), except where a setting says its bare unit is seconds
 * (health check `timeout` and `interval`, which SPEC calls integers).
 */
import { Either, Schema } from "effect"
import { describe, fromUnknown } from "./codec"

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
type Unit = keyof typeof UNIT_MS

const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i

export const durationHint = "a duration like 500ms, 10s, 1m or 2h (a bare number is milliseconds)"
export const durationSecondsHint = "a duration like 10s or 1m (a bare integer is seconds)"

/** Parses a duration into whole milliseconds; `bare` is the unit of a number without a suffix. */
export const parseDuration = (input: unknown, bare: "ms" | "s" = "ms"): Either.Either<number, string> => {
  const hint = bare === "ms" ? durationHint : durationSecondsHint
  if (typeof input === "number") {
    return Number.isFinite(input) && input >= 0
      ? Either.right(Math.round(input * UNIT_MS[bare]))
      : Either.left(`${String(input)} is not ${hint}`)
  }
  if (typeof input !== "string") return Either.left(`expected ${hint}, got ${describe(input)}`)
  const match = DURATION_PATTERN.exec(input.trim())
  if (match === null) return Either.left(`"${input}" is not ${hint}`)
  const unit = (match[2]?.toLowerCase() ?? bare) as Unit
  return Either.right(Math.round(Number(match[1]) * UNIT_MS[unit]))
}

/** The shortest exact spelling of a duration: 1500 → "1500ms", 60000 → "1m". */
export const formatDuration = (ms: number): string => {
  for (const unit of ["d", "h", "m", "s"] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`
  }
  return `${ms}ms`
}

/** docs/api.md §3's uptime (one formatter for the daemon, the CLI and the dashboard). */
export { formatUptime } from "../shared/uptime"

/** A duration setting decoded to milliseconds (bare numbers are milliseconds). */
export const DurationMs = fromUnknown(Schema.Number, (u) => parseDuration(u, "ms"), {
  identifier: "Duration",
  description: durationHint
})
/** A duration setting decoded to milliseconds (bare numbers are seconds). */
export const DurationSecondsMs = fromUnknown(Schema.Number, (u) => parseDuration(u, "s"), {
  identifier: "DurationSeconds",
  description: durationSecondsHint
})
