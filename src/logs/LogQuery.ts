/**
 * What a log read asks for (docs/api.md, `GET .../logs`) and its checked, compiled form.
 *
 * `level` keeps that level **and everything more severe** (`level=warn` gives warn, error and
 * fatal), as journalctl `-p` and most log tools do: asking for warnings rarely means hiding errors.
 * `since`/`until` bound the line's own timestamp (see `parseTimeBound`); a line without one (the
 * `"none"` date format) is left out whenever either bound is given.
 */
import { Either, Option, Schema } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { BadRequest } from "../domain/errors"
import { atLeast } from "./detectLevel"
import { type LogEntry, LogLevel, type LogStream } from "./LogEntry"
import { compileGrep, type GrepPattern } from "./grepPattern"
import { parseTimeBound } from "./parseTimeBound"

export const DEFAULT_LINES = 100

export const LogQuery = Schema.Struct({
  /** How many of the newest matching lines (default 100). */
  lines: Schema.optional(Schema.Number),
  stream: Schema.optional(Schema.Literal("out", "err", "all")),
  instance: Schema.optional(Schema.Number),
  /** An RE2 regular expression searched for in each message (`/pattern/i` for flags; see `grepPattern`). */
  grep: Schema.optional(Schema.String),
  level: Schema.optional(LogLevel),
  since: Schema.optional(Schema.String),
  until: Schema.optional(Schema.String)
})
export type LogQuery = typeof LogQuery.Type

export interface LogFilter {
  readonly lines: number
  readonly streams: ReadonlyArray<LogStream>
  /** Null: every instance. */
  readonly instance: number | null
  /** Null when no `grep` was given: then no line is matched at all. */
  readonly grep: GrepPattern | null
  readonly level: LogLevel | null
  /** Epoch milliseconds, inclusive. */
  readonly since: number | null
  readonly until: number | null
}

const badRequest = (field: string, reason: string, suggestion: string): BadRequest =>
  new BadRequest({ message: `Invalid ${field}: ${reason}`, details: { field, reason, suggestion } })

const TIME_SUGGESTION =
  "use an ISO 8601 date or date-time (2026-11-21, 2026-11-21T13:57:01Z) or a relative time like 30s, 10m, 2h, 1d"

const timeBound = (
  field: "since" | "until",
  text: string | undefined,
  now: number
): Either.Either<number | null, BadRequest> => {
  if (text === undefined) return Either.right(null)
  return Option.match(parseTimeBound(text, now), {
    onNone: () =>
      Either.left(badRequest(field, `"${text}" is not a date, date-time or relative time`, TIME_SUGGESTION)),
    onSome: (ms) => Either.right(ms)
  })
}

/** Checks a query against `app` and compiles it; `now` anchors relative times. */
export const compileLogQuery = (
  query: LogQuery,
  app: Pick<AppDefinition, "instances">,
  now: number
): Either.Either<LogFilter, BadRequest> =>
  Either.gen(function* () {
    const lines = query.lines ?? DEFAULT_LINES
    if (!Number.isInteger(lines) || lines < 0) {
      return yield* Either.left(
        badRequest("lines", `${lines} is not a whole number of lines`, "use lines=0 or more, like lines=100")
      )
    }
    const instance = query.instance ?? null
    if (instance !== null && (!Number.isInteger(instance) || instance < 0 || instance >= app.instances)) {
      return yield* Either.left(
        badRequest("instance", `the app has no instance ${instance}`, `use an instance from 0 to ${app.instances - 1}`)
      )
    }
    let grep: GrepPattern | null = null
    if (query.grep !== undefined && query.grep !== "") {
      const compiled = compileGrep(query.grep)
      if (Either.isLeft(compiled))
        return yield* Either.left(badRequest("grep", compiled.left.reason, compiled.left.suggestion))
      grep = compiled.right
    }
    const since = yield* timeBound("since", query.since, now)
    const until = yield* timeBound("until", query.until, now)
    if (since !== null && until !== null && until < since) {
      return yield* Either.left(badRequest("until", "until is before since", "give an until that is later than since"))
    }
    return {
      lines,
      streams: query.stream === "out" ? ["out"] : query.stream === "err" ? ["err"] : ["out", "err"],
      instance,
      grep,
      level: query.level ?? null,
      since,
      until
    }
  })

/** Whether a live entry passes a filter's stream, instance, grep and level tests (for `follow`). */
export const entryMatches = (filter: LogFilter, entry: LogEntry): boolean =>
  filter.streams.includes(entry.stream) &&
  (filter.instance === null || entry.instance === null || entry.instance === filter.instance) &&
  (filter.grep === null || filter.grep.test(entry.message)) &&
  (filter.level === null || atLeast(entry.level, filter.level))
