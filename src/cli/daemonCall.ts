/**
 * Runs a request against the daemon (started if needed, when it is the local one) and turns every
 * failure into the CLI's output and exit code: structured errors as DESIGN §9 says, an unreachable
 * daemon as 7, a remote listener's 401/403 as 8.
 */
import { Console, Effect, Option } from "effect"
import { ExitCode, isPmfxError } from "../domain/errors"
import { DaemonClient } from "./DaemonClient"
import { CliExit, failWith } from "./output"
import { refusalOf, reportRefusal } from "./remoteRefusal"

type Api = Effect.Effect.Success<DaemonClient["ensureDaemon"]>

const unreachable = (message: string) =>
  Console.error(`DAEMON_UNREACHABLE ${message}`).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.daemonUnreachable }))))

export const withDaemon = <A, E>(json: boolean, request: (api: Api) => Effect.Effect<A, E>): Effect.Effect<A, CliExit, DaemonClient> =>
  Effect.gen(function* () {
    const client = yield* DaemonClient
    const api = yield* client.ensureDaemon.pipe(Effect.catchTag("DaemonUnreachable", (error) => unreachable(error.message)))
    return yield* request(api).pipe(
      Effect.catchAll((error: unknown) =>
        Effect.gen(function* () {
          if (isPmfxError(error)) return yield* failWith(error, json)
          const refusal = yield* refusalOf(error)
          if (Option.isSome(refusal)) return yield* reportRefusal(refusal.value, client.target, json)
          const tagged = error as { readonly _tag?: string; readonly message?: string }
          if (tagged._tag === "RequestError") {
            const reason = (error as { readonly cause?: { readonly message?: string } }).cause?.message ?? tagged.message ?? ""
            return yield* client.target._tag === "Remote"
              ? unreachable(`cannot reach the daemon at ${client.target.url}: ${reason}\n  suggestion: check the address, and that the daemon there listens (\`pmfx web\` on its machine)`)
              : unreachable(`lost the connection to the daemon: ${tagged.message ?? ""}`)
          }
          return yield* Console.error(`pmfx: unexpected answer from the daemon at ${client.address}: ${tagged.message ?? String(error)}`).pipe(
            Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.unexpected })))
          )
        })
      )
    )
  })
