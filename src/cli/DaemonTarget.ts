/**
 * Which daemon the CLI drives (docs/architecture.md §10): the local one over its unix socket (started when
 * needed), or — with the global `--url URL` or `PMFX_URL` — a remote daemon's TCP API, with the key
 * of `--api-key` or `PMFX_API_KEY`.
 *
 * PMFX_API_KEY has two meanings that never meet: with a URL set it is the key the CLI sends to
 * the remote; without one the CLI does not read it, except `pmfx web`, for which it is the key of
 * the listener it opens. A global `--api-key` without a URL is refused: it could only be a
 * mistake for `pmfx web --api-key`.
 */
import { Console, Context, Effect, Either, Option, ParseResult, Redacted, Schema } from "effect"
import { ExitCode } from "../domain/errors"
import { CallerEnvironment } from "./CallerEnvironment"
import { CliExit } from "./output"

export type Target =
  | { readonly _tag: "Local" }
  | {
      readonly _tag: "Remote"
      /** The base URL, without a trailing slash. */
      readonly url: string
      readonly apiKey: Option.Option<Redacted.Redacted<string>>
      /** Where the URL came from, for messages. */
      readonly source: "--url" | "PMFX_URL"
    }

export class DaemonTarget extends Context.Tag("pmfx/DaemonTarget")<DaemonTarget, Target>() {}

/** What is wrong with a URL given as the remote daemon's address, or the URL without a trailing `/`. */
const parseRemoteUrl = (text: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(text.trim())
  } catch {
    return Either.left(`${JSON.stringify(text)} is not a URL`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Either.left(`${JSON.stringify(text)} is not an http or https URL`)
  if (url.username !== "" || url.password !== "")
    return Either.left("the URL carries a user name or password; give the key with --api-key or PMFX_API_KEY")
  if (url.search !== "" || url.hash !== "")
    return Either.left(
      `${JSON.stringify(text)} has a query or fragment; give only the address (and a path prefix behind a proxy)`
    )
  return Either.right(url.href.replace(/\/+$/, ""))
}

/** The remote daemon's address: an http(s) URL, normalized without a trailing slash. */
export const RemoteUrl = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (text, _, ast) =>
    Either.match(parseRemoteUrl(text), {
      onLeft: (reason) => ParseResult.fail(new ParseResult.Type(ast, text, reason)),
      onRight: ParseResult.succeed
    }),
  encode: ParseResult.succeed
}).annotations({ identifier: "RemoteUrl" })

/** The variables the target is chosen from (an empty value counts as unset). */
const TargetEnvironment = Schema.Struct({
  PMFX_URL: Schema.optional(Schema.String),
  PMFX_API_KEY: Schema.optional(Schema.String)
})

const usage = (lines: ReadonlyArray<string>) =>
  Console.error(lines.join("\n")).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.usage }))))

const nonEmpty = (value: string | undefined): Option.Option<string> =>
  value === undefined || value === "" ? Option.none() : Option.some(value)

/** Chooses the target from the global options and the caller's environment; usage errors exit 2. */
export const resolveTarget = (options: {
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const { env } = yield* CallerEnvironment
    const variables = yield* Schema.decodeUnknown(TargetEnvironment)(env).pipe(Effect.orDie)
    const fromEnv = nonEmpty(variables.PMFX_URL)
    const source = Option.isSome(options.url) ? "--url" : "PMFX_URL"
    const text = Option.orElse(options.url, () => fromEnv)
    if (Option.isNone(text)) {
      if (Option.isSome(options.apiKey)) {
        return yield* usage([
          "BAD_REQUEST --api-key: before the command it is the key of a remote daemon, and no --url (or PMFX_URL) is given",
          "  suggestion: add --url http://host:9615, or give the listener's key to `pmfx web --api-key`"
        ])
      }
      return { _tag: "Local" } as Target
    }
    const decoded = Schema.decodeEither(RemoteUrl)(text.value)
    if (Either.isLeft(decoded)) {
      const reason = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]?.message ?? "is not a valid URL"
      return yield* usage([
        `BAD_REQUEST ${source}: ${reason}`,
        "  suggestion: write the daemon's address like http://host:9615 (the port of its `pmfx web`)"
      ])
    }
    if (Option.isSome(options.apiKey) && options.apiKey.value === "")
      return yield* usage([
        "BAD_REQUEST --api-key: an API key cannot be empty",
        "  suggestion: give the key the remote's `pmfx web` was opened with"
      ])
    const apiKey = Option.orElse(options.apiKey, () => nonEmpty(variables.PMFX_API_KEY))
    return { _tag: "Remote", url: decoded.right, apiKey: Option.map(apiKey, Redacted.make), source } as Target
  })

/** What the CLI connects to a remote daemon with: its own settings, never an app's. */
const CLIENT_VARIABLES = new Set(["PMFX_URL", "PMFX_API_KEY"])

/**
 * The environment `start` hands to the apps it starts (docs/architecture.md §4: the CLI's own, under their
 * env_file and env). Sent to a remote daemon, it leaves out the variables that connect this CLI to
 * it, so the key never ends up in the remote's state.json or in its apps.
 */
export const environmentForApps = (
  env: Readonly<Record<string, string | undefined>>,
  target: Target
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" && (target._tag === "Local" || !CLIENT_VARIABLES.has(entry[0]))
    )
  )

/**
 * For the commands that only make sense on this machine (they use the daemon control routes,
 * which TCP does not serve, or they act on the local system): a usage error when a URL is set.
 */
export const requireLocal = (command: string, why: string) =>
  Effect.gen(function* () {
    const target = yield* DaemonTarget
    if (target._tag === "Local") return
    return yield* usage([
      `BAD_REQUEST ${command}: works on this machine only (${why}), and ${target.source} names a remote daemon (${target.url})`,
      `  suggestion: run \`pmfx ${command}\` on the daemon's own machine${target.source === "--url" ? ", without --url" : ", with PMFX_URL unset"}`
    ])
  })
