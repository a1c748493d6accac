// Decoding settings with a schema into problems: each with a suggestion, unknown keys with the closest known one.

import { Either, ParseResult, Schema } from "effect"
import { MAX_LINE_LENGTH_RANGE } from "../domain/AppDefinition"
import { cronHint } from "../domain/cronSchedule"
import { durationHint, durationSecondsHint } from "../domain/Duration"
import type { ConfigProblem } from "../domain/errors"
import { portHint } from "../domain/Port"
import { formatSize, sizeHint } from "../domain/Size"
import { AlertSettings, HealthCheckSettings, LogSettings, RestartLoopSettings, WebhookSettings } from "./AppSettings"
import { closestKey } from "./closestKey"
import { formatPath } from "./fieldPath"
import { isRecord } from "./mergeSettings"
import { instancesHint, killSignalHint } from "./settingCodecs"

/** Known keys of each nested settings object, to suggest the closest one for a typo. */
const knownKeysByParent: Readonly<Record<string, ReadonlyArray<string>>> = {
  health_check: Object.keys(HealthCheckSettings.fields),
  log: Object.keys(LogSettings.fields),
  alerts: Object.keys(AlertSettings.fields),
  restart_loop: Object.keys(RestartLoopSettings.fields),
  webhooks: Object.keys(WebhookSettings.fields)
}

const valueAt = (root: unknown, keys: ReadonlyArray<PropertyKey>): unknown =>
  keys.reduce<unknown>(
    (node, key) => (isRecord(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[key] : undefined),
    root
  )

const unknownKeyProblem = (field: string, key: string, value: unknown, known: ReadonlyArray<string>): ConfigProblem => {
  const closest = closestKey(key, known)
  return {
    field,
    value,
    message: `unknown setting "${key}"`,
    suggestion:
      closest === undefined
        ? `remove it; known settings are listed in docs/configuration.md`
        : `did you mean "${closest}"?`
  }
}

/**
 * The warning for an unknown key (PM2 ignores keys it does not know, so a PM2 file may carry any):
 * `apps[0].instance: unknown setting "instance" — did you mean "instances"? (ignored)`.
 */
export const unknownKeyWarning = (found: ConfigProblem): string =>
  found.suggestion.startsWith("did you mean")
    ? `${found.field}: ${found.message} — ${found.suggestion} (ignored)`
    : `${found.field}: ${found.message} (ignored; the settings pmfx knows are listed in docs/configuration.md)`

/** What decoding found: the value (when only unknown keys stood in its way), problems, and the unknown keys. */
interface Decoded<A> {
  readonly value: A | undefined
  readonly problems: ReadonlyArray<ConfigProblem>
  readonly unknownKeys: ReadonlyArray<ConfigProblem>
}

/**
 * Decodes `input` with `schema`, turning every issue into a problem under `base`. Unknown keys are
 * reported apart (as problems of their own, for `--strict`, and as warnings otherwise): a value
 * whose only fault is an unknown key decodes with the key left out.
 */
export const decodeAll = <A, I>(
  schema: Schema.Schema<A, I>,
  input: unknown,
  base: string,
  parentKeys: ReadonlyArray<string>
): Decoded<A> => {
  const strict = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(input)
  if (Either.isRight(strict)) return { value: strict.right, problems: [], unknownKeys: [] }
  const problems: Array<ConfigProblem> = []
  const unknownKeys: Array<ConfigProblem> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(strict.left)) {
    const field = formatPath(issue.path, base)
    const value = valueAt(input, issue.path)
    if (issue._tag === "Missing") {
      problems.push({ field, value: null, message: "is required", suggestion: `add ${String(issue.path.at(-1))}` })
    } else if (issue._tag === "Unexpected") {
      const key = String(issue.path.at(-1))
      // The object holding the key: `webhooks` for `webhooks[0].urll`, not the index.
      const parent = String(issue.path.slice(0, -1).findLast((k) => typeof k !== "number") ?? "")
      unknownKeys.push(unknownKeyProblem(field, key, value, knownKeysByParent[parent] ?? parentKeys))
    } else {
      problems.push({
        field,
        value,
        message: issue.message,
        suggestion: suggestionFor(String(issue.path.at(-1) ?? ""), issue.message)
      })
    }
  }
  // `scirpt` beside a missing `script`: say which key to rename, not only that one is missing.
  const explained = problems.map((found) => {
    if (found.message !== "is required") return found
    const missing = found.field.slice(found.field.lastIndexOf(".") + 1)
    const parent = found.field.slice(0, found.field.length - missing.length)
    const typo = unknownKeys.find(
      (u) => u.suggestion === `did you mean "${missing}"?` && !u.field.slice(parent.length).includes(".")
    )
    return typo === undefined || !typo.field.startsWith(parent)
      ? found
      : { ...found, suggestion: `rename "${typo.field.slice(parent.length)}" to "${missing}"` }
  })
  if (problems.length > 0) return { value: undefined, problems: explained, unknownKeys }
  const lenient = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })(input)
  return { value: Either.getOrUndefined(lenient), problems: [], unknownKeys }
}

/** What to write instead, by setting: the hint of its value type. */
const hintBySetting: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    [
      "min_uptime",
      "restart_delay",
      "exp_backoff_restart_delay",
      "kill_timeout",
      "listen_timeout",
      "cpu_duration",
      "window"
    ].map((k) => [k, durationHint])
  ),
  timeout: durationSecondsHint,
  interval: durationSecondsHint,
  max_memory_restart: sizeHint,
  max_log_size: sizeHint,
  max_line_length: `a size from ${formatSize(MAX_LINE_LENGTH_RANGE.min)} to ${formatSize(MAX_LINE_LENGTH_RANGE.max)}, like 1M or 4M`,
  memory: sizeHint,
  port: portHint,
  instances: instancesHint,
  kill_signal: killSignalHint,
  stop_exit_codes: "an exit code (0 to 255) or a list of them, like [0, 3]",
  cron_restart: cronHint,
  instance_var: "a variable name like INSTANCE_ID",
  increment_var: "a variable name like PORT"
}

const suggestionFor = (setting: string, message: string): string => {
  const hint = hintBySetting[setting]
  if (hint !== undefined) return `write ${hint}`
  const expected =
    /is not (an? .*)$/.exec(message) ?? /^expected (.*), got/.exec(message) ?? /^(must .*)$/.exec(message)
  return expected === null
    ? "fix the value"
    : expected[1]!.startsWith("must")
      ? `it ${expected[1]}`
      : `write ${expected[1]}`
}
