/**
 * A remote daemon's TCP listener refusing a request (docs/api.md, docs/architecture.md §10): 401 for a missing or wrong
 * key, 403 for the read-only key on a change (or a request its browser guards refuse). The CLI
 * prints the listener's own message with a suggestion and exits 8; the key itself is never shown.
 */
import { HttpClientError } from "@effect/platform"
import { Console, Effect, Option, Schema } from "effect"
import { ExitCode } from "../domain/errors"
import type { Target } from "./DaemonTarget"
import { CliExit, printJson } from "./output"

/** The body of the listener's 401/403 (src/api/webGuard.ts). */
const RefusalBody = Schema.Struct({ error: Schema.Literal("unauthorized", "forbidden"), message: Schema.String })

export interface Refusal {
  readonly status: 401 | 403
  readonly error: "unauthorized" | "forbidden"
  readonly message: string
}

/** The refusal a failed request carries, if it is one (a 401 or 403 answer). */
export const refusalOf = (error: unknown): Effect.Effect<Option.Option<Refusal>> => {
  if (!HttpClientError.isHttpClientError(error) || error._tag !== "ResponseError") return Effect.succeedNone
  const status = error.response.status
  if (status !== 401 && status !== 403) return Effect.succeedNone
  return error.response.json.pipe(
    Effect.flatMap(Schema.decodeUnknown(RefusalBody)),
    Effect.option,
    Effect.map((body) =>
      Option.some(
        Option.match(body, {
          onNone: (): Refusal => ({
            status,
            error: status === 401 ? "unauthorized" : "forbidden",
            message: `the daemon answered ${status}`
          }),
          onSome: (b): Refusal => ({ status, ...b })
        })
      )
    )
  )
}

const suggestionFor = (refusal: Refusal, target: Target): string => {
  const keyGiven = target._tag === "Remote" && Option.isSome(target.apiKey)
  if (refusal.status === 401) {
    return keyGiven
      ? "the API key given (--api-key or PMFX_API_KEY) is not one this daemon accepts: give the key its `pmfx web --api-key` was opened with"
      : "give the daemon's API key with --api-key or PMFX_API_KEY"
  }
  return /read-only/i.test(refusal.message)
    ? "this key may only read: give the daemon's full API key (--api-key or PMFX_API_KEY) to change anything"
    : "the daemon's listener refused the request: check that --url names it as it was opened (its host and port)"
}

/** Prints a refusal (the wire-like shape on stdout with `--json`) and ends the command with exit 8. */
export const reportRefusal = (refusal: Refusal, target: Target, json: boolean): Effect.Effect<never, CliExit> => {
  const code = refusal.error.toUpperCase()
  const url = target._tag === "Remote" ? target.url : ""
  const suggestion = suggestionFor(refusal, target)
  const printed = json
    ? printJson({ success: false, error: { code, message: refusal.message, details: { url, suggestion } } })
    : Console.error(`${code} ${refusal.message} (${url})\n  suggestion: ${suggestion}`)
  return printed.pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.unauthorized }))))
}
