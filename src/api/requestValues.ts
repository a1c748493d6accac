/** Checks of values that arrive as strings in paths and query strings (each bad one is BAD_REQUEST). */
import { Effect, Either } from "effect"
import { formatDuration, parseDuration } from "../domain/Duration"
import { BadRequest } from "../domain/errors"
import { MAX_NESTING, nestingDepth } from "../domain/nestingDepth"
import { type ProcessStatus, processStatuses } from "../domain/ProcessStatus"

export const badRequest = (field: string, reason: string, suggestion: string) =>
  new BadRequest({ message: `Invalid ${field}: ${reason}`, details: { field, reason, suggestion } })

/** A comma-separated list of process states, each one known. */
export const parseStatuses = (field: string, text: string): Effect.Effect<ReadonlyArray<ProcessStatus>, BadRequest> => {
  const parts = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const unknown = parts.filter((s) => !(processStatuses as ReadonlyArray<string>).includes(s))
  if (parts.length === 0 || unknown.length > 0) {
    return Effect.fail(
      badRequest(
        field,
        `${JSON.stringify(unknown[0] ?? text)} is not a process state`,
        `use one or more of ${processStatuses.join(", ")}, separated by commas`
      )
    )
  }
  return Effect.succeed(parts as Array<ProcessStatus>)
}

export const parseWholeNumber = (
  field: string,
  text: string | undefined,
  min = 0
): Effect.Effect<number | undefined, BadRequest> => {
  if (text === undefined) return Effect.succeed(undefined)
  return /^\d+$/.test(text.trim()) && Number(text) >= min
    ? Effect.succeed(Number(text))
    : Effect.fail(
        badRequest(
          field,
          `${JSON.stringify(text)} is not a whole number${min > 0 ? ` of at least ${min}` : ""}`,
          `give ${field} as digits, like ${field}=${Math.max(min, 10)}`
        )
      )
}

/**
 * A yes/no query parameter (`follow`, `strict`): `true` or `1`, `false` or `0`, absent is false.
 * Anything else is BAD_REQUEST rather than quietly false: `strict=yes` read as false would hide a
 * degraded daemon from the load balancer that asked for strictness.
 */
export const parseBooleanParam = (field: string, text: string | undefined): Effect.Effect<boolean, BadRequest> => {
  if (text === undefined || text === "false" || text === "0") return Effect.succeed(false)
  if (text === "true" || text === "1") return Effect.succeed(true)
  return Effect.fail(
    badRequest(
      field,
      `${JSON.stringify(text)} is not true or false`,
      `give ${field}=true or ${field}=false (or 1 and 0)`
    )
  )
}

/** A duration in a query (a bare number is milliseconds), at most `maxMs`; `fallbackMs` when absent. */
export const parseDurationParam = (
  field: string,
  text: string | undefined,
  fallbackMs: number,
  maxMs: number,
  tooLongSuggestion = `wait at most ${formatDuration(maxMs)}, and ask again if you need longer`
): Effect.Effect<number, BadRequest> => {
  if (text === undefined) return Effect.succeed(fallbackMs)
  return Either.match(parseDuration(text), {
    onLeft: (reason) => Effect.fail(badRequest(field, reason, "use a duration like 500ms, 30s or 2m")),
    onRight: (ms) =>
      ms > maxMs
        ? Effect.fail(
            badRequest(field, `${JSON.stringify(text)} is longer than ${formatDuration(maxMs)}`, tooLongSuggestion)
          )
        : Effect.succeed(ms)
  })
}

/**
 * `name` filter: exact, or a glob with `*`. Matched by hand rather than with a regular expression:
 * `a*a*a*…b` as a RegExp backtracks exponentially against a long name and would stall the daemon's
 * event loop; this walk is at most names × pattern steps.
 */
export const nameMatcher = (pattern: string): ((name: string) => boolean) => {
  if (!pattern.includes("*")) return (name) => name === pattern
  return (name) => {
    let p = 0
    let n = 0
    /** The last `*` seen, and where in the name its match currently ends. */
    let star = -1
    let resume = 0
    while (n < name.length) {
      if (p < pattern.length && pattern[p] !== "*" && pattern[p] === name[n]) {
        p++
        n++
      } else if (p < pattern.length && pattern[p] === "*") {
        star = p++
        resume = n
      } else if (star !== -1) {
        // Let the last `*` take one more character and try the rest again.
        p = star + 1
        n = ++resume
      } else {
        return false
      }
    }
    while (pattern[p] === "*") p++
    return p === pattern.length
  }
}

/** How deeply a request body may nest: as deeply as an ecosystem file (domain/nestingDepth.ts). */
export const MAX_BODY_DEPTH = MAX_NESTING

/** A JSON body nested at most `MAX_BODY_DEPTH` levels deep, else BAD_REQUEST. */
export const checkDepth = (body: unknown): Effect.Effect<void, BadRequest> =>
  nestingDepth(body) > MAX_BODY_DEPTH
    ? Effect.fail(
        badRequest(
          "body",
          `the body nests more than ${MAX_BODY_DEPTH} levels deep`,
          "send app settings as they appear in an ecosystem file"
        )
      )
    : Effect.void
