/**
 * Runs a request against the daemon (started if needed, when it is the local one) and turns every
 * failure into the CLI's output and exit code: structured errors as docs/architecture.md §10 says, an unreachable
 * daemon as 7, a remote listener's 401/403 as 8.
 */
import { Console, Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import { looksLikeEcosystemFile } from "../config/ConfigFormat"
import { ExitCode, isPmfxError, type PmfxError, ProcessNotFound } from "../domain/errors"
import { DaemonClient } from "./DaemonClient"
import { answerOf, type DaemonAnswer } from "./daemonAnswer"
import { CliExit, failWith } from "./output"
import { refusalOf, reportRefusal } from "./remoteRefusal"
import { unexpectedAnswerText, unreadableAnswer } from "./unexpectedAnswer"

type Api = Effect.Effect.Success<DaemonClient["ensureDaemon"]>

/** One line for an answer that is no structured error (an unknown route, an unreadable body). */
const unexpectedAnswer = (address: string, answer: Option.Option<DaemonAnswer>): string =>
  unexpectedAnswerText(
    address,
    Option.match(answer, {
      onNone: () => "failed in a way this pmfx does not know",
      onSome: (a) =>
        a._tag === "Simple"
          ? `answered ${a.status === undefined ? "" : `${a.status} `}${JSON.stringify(a.message)}`
          : a._tag === "Unreadable"
            ? unreadableAnswer(a.status)
            : `answered ${a.error._tag}`
    })
  )

const unreachable = (message: string) =>
  Console.error(`DAEMON_UNREACHABLE ${message}`).pipe(
    Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.daemonUnreachable })))
  )

/**
 * `.` and `..` cannot go in a URL path (every URL parser folds them away, so `pmfx stop ..` would
 * reach another route), and they can name nothing: ids are numbers, and `.` and `..` are refused
 * as names (domain/appName.ts). They are answered here, as the daemon would answer any unknown selector.
 */
const isDotSegment = (selector: string) => selector === "." || selector === ".."

/** A selector that looks like a file path (`./eco.json`, `/srv/app`), which no app can be named. */
const looksLikePath = (selector: string) => selector.includes("/") || looksLikeEcosystemFile(selector)

/** `/^api-/`, `/worker/i`: PM2's regular-expression target (a path that exists is a path). */
const looksLikeRegex = (selector: string) => /^\/.+\/[gimsuy]*$/.test(selector) && !fs.existsSync(selector)

/**
 * PROCESS_NOT_FOUND for a selector, with a suggestion that fits a path: these commands act on
 * processes the daemon holds; a file's apps are named one by one (there is no file form yet).
 */
const notFound = (selector: string, error?: ProcessNotFound): ProcessNotFound => {
  // PM2's `pm2 stop /^api-/`: pmfx has no regular-expression targets (docs/decisions.md).
  if (looksLikeRegex(selector)) {
    return new ProcessNotFound({
      message: `no process with id, name or namespace ${JSON.stringify(selector)}: pmfx targets are ids, names, namespaces or all, not regular expressions`,
      details: {
        process_id: selector,
        suggestion:
          "name the apps (pmfx stop api worker: several targets work), or give them one namespace (--namespace, or namespace in the file) and use it"
      }
    })
  }
  if (!looksLikePath(selector)) {
    return (
      error ??
      new ProcessNotFound({
        message: `no process with id, name or namespace ${JSON.stringify(selector)}`,
        details: { process_id: selector, suggestion: "list the processes with `pmfx list` to see their ids and names" }
      })
    )
  }
  return new ProcessNotFound({
    message: `no process with id, name or namespace ${JSON.stringify(selector)}: this command takes a process id, an app name, a namespace or all, not a file`,
    details: {
      process_id: selector,
      suggestion: `name the file's apps instead (\`pmfx validate ${selector}\` lists them), or use all; \`pmfx start\`, \`stop\`, \`restart\`, \`reload\`, \`delete\` and \`apply\` take an ecosystem file that exists`
    }
  })
}

export interface DaemonCallOptions {
  /** The `{id}` the command was given, for answers about it (see `notFound`). */
  readonly selector?: string | undefined
}

export const withDaemon = <A, E>(
  json: boolean,
  request: (api: Api) => Effect.Effect<A, E>,
  options: DaemonCallOptions = {}
): Effect.Effect<A, CliExit, DaemonClient> =>
  Effect.flatMap(
    tryDaemon(json, request, options),
    Either.match({ onLeft: (error) => failWith(error, json), onRight: Effect.succeed })
  )

/**
 * Like `withDaemon`, but a structured error of the daemon comes back as a value (Left) instead of
 * ending the command: for the commands that act on several selectors one after the other
 * (`pmfx stop api worker`) and report every failure at the end. An unreachable daemon or a
 * refused key still ends the command: no later selector could do better.
 */
export const tryDaemon = <A, E>(
  json: boolean,
  request: (api: Api) => Effect.Effect<A, E>,
  options: DaemonCallOptions = {}
): Effect.Effect<Either.Either<A, PmfxError>, CliExit, DaemonClient> =>
  Effect.gen(function* () {
    const { selector } = options
    if (selector !== undefined && isDotSegment(selector)) return Either.left(notFound(selector))
    const client = yield* DaemonClient
    const api = yield* client.ensureDaemon.pipe(
      Effect.catchTags({
        DaemonUnreachable: (error) => unreachable(error.message),
        FILE_ERROR: (error) => failWith(error, json)
      })
    )
    return yield* request(api).pipe(
      Effect.map((a) => Either.right(a) as Either.Either<A, PmfxError>),
      Effect.catchAll((error: unknown) =>
        Effect.gen(function* () {
          if (isPmfxError(error)) {
            const explained =
              selector !== undefined && error._tag === "PROCESS_NOT_FOUND" && error.details.process_id === selector
                ? notFound(selector, error)
                : error
            return Either.left(explained) as Either.Either<A, PmfxError>
          }
          const refusal = yield* refusalOf(error)
          if (Option.isSome(refusal)) return yield* reportRefusal(refusal.value, client.target, json)
          const tagged = error as { readonly _tag?: string; readonly message?: string }
          if (tagged._tag === "RequestError") {
            const reason =
              (error as { readonly cause?: { readonly message?: string } }).cause?.message ?? tagged.message ?? ""
            return yield* client.target._tag === "Remote"
              ? unreachable(
                  `cannot reach the daemon at ${client.target.url}: ${reason}\n  suggestion: check the address, and that the daemon there listens (\`pmfx web\` on its machine)`
                )
              : unreachable(`lost the connection to the daemon: ${tagged.message ?? ""}`)
          }
          // The internals (a schema's complaint, the raw body) are for PMFX_DEBUG=1, never the user.
          const answer = yield* answerOf(error)
          yield* Effect.logDebug(
            `answer from the daemon at ${client.address} that the client could not read`,
            error,
            Option.getOrNull(answer)
          )
          if (Option.isSome(answer) && answer.value._tag === "Structured")
            return Either.left(answer.value.error) as Either.Either<A, PmfxError>
          return yield* Console.error(unexpectedAnswer(client.address, answer)).pipe(
            Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.unexpected })))
          )
        })
      )
    )
  })
