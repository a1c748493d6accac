/** Decoders for the value types of app settings, each accepting what users actually write. */
import { Either, Schema } from "effect"
import { describe, fromUnknown } from "../domain/codec"
import { cronHint, parseCronSchedule } from "../domain/cronSchedule"
import { splitShellWords } from "../domain/shellWords"
import { NO_TIMESTAMP } from "../logs/TimestampPattern"
import { isNamedSignal, parseSignal } from "../supervisor/signals"

const asTrimmedString = (input: unknown): string | undefined => (typeof input === "string" ? input.trim() : undefined)

export const Text = fromUnknown(
  Schema.String,
  (u) => (typeof u === "string" ? Either.right(u) : Either.left(`expected a string, got ${describe(u)}`)),
  { identifier: "String", description: "a string" }
)

export const NonEmptyText = fromUnknown(
  Schema.String,
  (u) =>
    typeof u === "string" && u.trim() !== ""
      ? Either.right(u)
      : Either.left(typeof u === "string" ? "must not be empty" : `expected a string, got ${describe(u)}`),
  { identifier: "NonEmptyString", description: "a non-empty string" }
)

export const parseBoolean = (u: unknown): Either.Either<boolean, string> => {
  if (typeof u === "boolean") return Either.right(u)
  const text = asTrimmedString(u)?.toLowerCase()
  if (text === "true") return Either.right(true)
  if (text === "false") return Either.right(false)
  return Either.left(`expected true or false, got ${describe(u)}`)
}

export const Bool = fromUnknown(Schema.Boolean, parseBoolean, { identifier: "Boolean", description: "true or false" })

/** Parses a whole number ≥ `min`, also from a numeric string such as a `${VAR}` substitution. */
export const parseInteger = (u: unknown, min: number): Either.Either<number, string> => {
  const text = asTrimmedString(u)
  const n = typeof u === "number" ? u : text !== undefined && /^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN
  if (Number.isNaN(n)) return Either.left(`expected a whole number, got ${describe(u)}`)
  if (!Number.isInteger(n)) return Either.left(`${JSON.stringify(u)} is not a whole number`)
  if (n < min) return Either.left(`${JSON.stringify(u)} is below the minimum ${min}`)
  return Either.right(n)
}

export const Integer = (min: number) =>
  fromUnknown(Schema.Int, (u) => parseInteger(u, min), {
    identifier: `IntegerFrom${min}`,
    description: `a whole number, at least ${min}`
  })

/** A number (percent and the like), also from a numeric string. */
export const Decimal = fromUnknown(
  Schema.Number,
  (u) => {
    const text = asTrimmedString(u)
    const n = typeof u === "number" ? u : text !== undefined && /^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN
    return Number.isFinite(n) && n >= 0
      ? Either.right(n)
      : Either.left(`expected a non-negative number, got ${describe(u)}`)
  },
  { identifier: "Number", description: "a non-negative number" }
)

export const instancesHint =
  'an instance count (a whole number, "max", 0 for one per CPU or -1 for one per CPU but one)'

/**
 * `instances`: a whole number, `max` (one per CPU), or PM2's 0 (one per CPU) and -1 (one per CPU
 * but one). Decoded to the written intent; `resolveInstances` turns it into a count.
 */
export const Instances = fromUnknown(
  Schema.Union(Schema.Int, Schema.Literal("max")),
  (u) => {
    if (asTrimmedString(u)?.toLowerCase() === "max") return Either.right("max" as const)
    return Either.mapLeft(parseInteger(u, -1), () => `${JSON.stringify(u)} is not ${instancesHint}`)
  },
  { identifier: "Instances", description: 'a whole number, "max", 0 or -1' }
)

export const resolveInstances = (written: number | "max", cpus: number): number =>
  written === "max" || written === 0 ? cpus : written === -1 ? Math.max(1, cpus - 1) : written

/** Arguments: an array (numbers are stringified) or a string split with shell quoting rules. */
export const Args = fromUnknown(
  Schema.Array(Schema.String),
  (u) => {
    if (typeof u === "string") return splitShellWords(u)
    if (Array.isArray(u) && u.every((a) => typeof a === "string" || typeof a === "number" || typeof a === "boolean")) {
      return Either.right(u.map(String))
    }
    return Either.left(`expected an array of strings or a string of arguments, got ${describe(u)}`)
  },
  { identifier: "Args", description: "an array of strings, or one string split like a shell would" }
)

/** A list of strings; a single string is a list of one. */
export const TextList = fromUnknown(
  Schema.Array(Schema.String),
  (u) =>
    typeof u === "string"
      ? Either.right([u])
      : Array.isArray(u) && u.every((a) => typeof a === "string")
        ? Either.right(u as Array<string>)
        : Either.left(`expected an array of strings, got ${describe(u)}`),
  { identifier: "StringList", description: "an array of strings" }
)

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Environment variables: string keys; string, number or boolean values (stored as strings). */
export const EnvMap = fromUnknown(
  Schema.Record({ key: Schema.String, value: Schema.String }),
  (u) => {
    if (typeof u !== "object" || u === null || Array.isArray(u)) {
      return Either.left(`expected an object of variables, got ${describe(u)}`)
    }
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(u)) {
      if (!ENV_NAME.test(key)) return Either.left(`"${key}" is not a variable name (letters, digits and _)`)
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") env[key] = String(value)
      else return Either.left(`variable ${key} must be a string, number or boolean, got ${describe(value)}`)
    }
    return Either.right(env)
  },
  { identifier: "Env", description: "an object of variable names to values" }
)

export const Umask = fromUnknown(
  Schema.String,
  (u) => {
    // A bare number is refused: YAML reads `022` as twenty-two and JavaScript `0o022` as eighteen,
    // so only the quoted octal digits say what the user meant.
    if (typeof u === "number")
      return Either.left(`${u} is a number; write the umask as a quoted octal string like "022"`)
    const text = asTrimmedString(u)
    return text !== undefined && /^0?[0-7]{1,3}$/.test(text)
      ? Either.right(text.padStart(3, "0").slice(-3))
      : Either.left(`${JSON.stringify(u)} is not an octal umask like "022"`)
  },
  { identifier: "Umask", description: 'an octal string like "022"' }
)

export const literalOf = <const L extends string>(values: ReadonlyArray<L>, identifier: string) =>
  fromUnknown(
    Schema.Literal(...values),
    (u) => {
      const text = asTrimmedString(u)
      const found = values.find((v) => v === text)
      return found === undefined
        ? Either.left(`expected one of ${values.map((v) => JSON.stringify(v)).join(", ")}, got ${describe(u)}`)
        : Either.right(found)
    },
    { identifier, description: `one of ${values.join(", ")}` }
  )

/** `watch`: true/false, or the list of paths to watch (PM2 accepts both). */
export const WatchSetting = fromUnknown(
  Schema.Union(Schema.Boolean, Schema.Array(Schema.String)),
  (u) =>
    Array.isArray(u)
      ? u.every((p) => typeof p === "string")
        ? Either.right(u as Array<string>)
        : Either.left("expected true, false or an array of paths")
      : Either.orElse(parseBoolean(u), () =>
          // PM2 reads a string that is not a boolean as one path to watch (`watch: "src"`).
          typeof u === "string" && u.trim() !== ""
            ? Either.right([u])
            : Either.left(`expected true, false, a path or an array of paths, got ${describe(u)}`)
        ),
  { identifier: "Watch", description: "true, false, a path or an array of paths" }
)

/**
 * `log_date_format`: a date pattern, or no timestamp prefix at all. PM2 files turn the prefix off
 * with `false`, `null`, `""` or `"none"` (any case); each is read as `"none"`.
 */
export const DateFormatSetting = fromUnknown(
  Schema.String,
  (u) => {
    if (u === false || u === null) return Either.right(NO_TIMESTAMP)
    if (typeof u !== "string")
      return Either.left(
        `expected a date format like "YYYY-MM-DD HH:mm:ss Z" (or false for no timestamp), got ${describe(u)}`
      )
    return Either.right(u.trim() === "" || u.trim().toLowerCase() === NO_TIMESTAMP ? NO_TIMESTAMP : u)
  },
  { identifier: "DateFormat", description: 'a date format, or false / "none" for no timestamp' }
)

/**
 * The name of an environment variable (`instance_var`, `increment_var`). PM2 takes any string, and
 * so does the environment of a process (`newonlyfans-backend` is seen in real files): only `=` and
 * NUL cannot be part of a name.
 */
export const EnvName = fromUnknown(
  Schema.String,
  (u) => {
    const text = asTrimmedString(u)
    return text !== undefined && text !== "" && !/[=\0]/.test(text)
      ? Either.right(text)
      : Either.left(`${describe(u)} is not a variable name (not empty, without "=")`)
  },
  { identifier: "EnvName", description: "a variable name" }
)

const parseExitCode = (u: unknown): Either.Either<number, string> =>
  Either.flatMap(parseInteger(u, 0), (n) =>
    n <= 255 ? Either.right(n) : Either.left(`${JSON.stringify(u)} is not an exit code (0 to 255)`)
  )

/** `stop_exit_codes`: one exit code or a list of them (PM2 accepts both). */
export const ExitCodes = fromUnknown(
  Schema.Array(Schema.Int),
  (u) => {
    const items: ReadonlyArray<unknown> = Array.isArray(u) ? u : [u]
    const codes: Array<number> = []
    for (const item of items) {
      const code = parseExitCode(item)
      if (Either.isLeft(code)) return Either.left(code.left.replace("expected a whole number", "expected an exit code"))
      codes.push(code.right)
    }
    return Either.right(codes)
  },
  { identifier: "ExitCodes", description: "an exit code or a list of exit codes" }
)

/** `cron_restart`: a schedule checked by `parseCronSchedule`; PM2's `0` / `"0"` means no schedule (null). */
export const CronSetting = fromUnknown(
  Schema.NullOr(Schema.String),
  (u) => {
    if (u === 0 || asTrimmedString(u) === "0") return Either.right(null)
    if (typeof u !== "string") return Either.left(`expected ${cronHint}, got ${describe(u)}`)
    return Either.map(parseCronSchedule(u), () => u.trim())
  },
  { identifier: "CronSchedule", description: "a cron schedule" }
)

/**
 * `filter_env`: which variables of the starting environment the app does not inherit — `true` for
 * all of them, or names (a string or a list): a variable whose name contains one is left out.
 */
export const FilterEnv = fromUnknown(
  Schema.Union(Schema.Boolean, Schema.Array(Schema.String)),
  (u) => {
    if (typeof u === "string") return u.trim() === "" ? Either.left("must not be empty") : Either.right([u.trim()])
    if (Array.isArray(u)) {
      return u.every((item) => typeof item === "string" && item.trim() !== "")
        ? Either.right(u.map((item: string) => item.trim()))
        : Either.left("expected true, false, a variable name or a list of them")
    }
    return Either.mapLeft(
      parseBoolean(u),
      () => `expected true, false, a variable name or a list of them, got ${describe(u)}`
    )
  },
  { identifier: "FilterEnv", description: "true, false, a name or a list of names" }
)

export const killSignalHint = "a signal name like SIGINT, SIGTERM or SIGUSR2 (INT, sigint and a number like 2 work too)"

/**
 * `kill_signal`: PM2's first signal of a stop, in any form `pmfx sendSignal` takes (`SIGINT`,
 * `INT`, `sigint`, `2`), stored by its canonical name. A real-time signal has no name Node can send.
 */
export const KillSignal = fromUnknown(
  Schema.String,
  (u) => {
    const text = typeof u === "number" ? String(u) : asTrimmedString(u)
    if (text === undefined || text === "") return Either.left(`expected a signal name, got ${describe(u)}`)
    return Either.flatMap(parseSignal(text), (signal) =>
      isNamedSignal(signal.name)
        ? Either.right(signal.name)
        : Either.left(`${JSON.stringify(u)} is not a signal pmfx can send by name`)
    )
  },
  { identifier: "KillSignal", description: "a signal name like SIGINT or SIGTERM" }
)
