/**
 * Runs a request against the daemon (started if needed) and turns every failure into the CLI's
 * output and exit code: structured errors as DESIGN §9 says, an unreachable daemon as 7.
 */
import { Console, Effect } from "effect"
import { isPmfxError } from "../domain/errors"
import { DaemonClient } from "./DaemonClient"
import { CliExit, failWith } from "./output"
import { ExitCode } from "../domain/errors"

type Api = Effect.Effect.Success<DaemonClient["ensureDaemon"]>

const unreachable = (message: string) =>
  Console.error(`DAEMON_UNREACHABLE ${message}`).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.daemonUnreachable }))))

export const withDaemon = <A, E>(json: boolean, request: (api: Api) => Effect.Effect<A, E>): Effect.Effect<A, CliExit, DaemonClient> =>
  Effect.gen(function* () {
    const client = yield* DaemonClient
    const api = yield* client.ensureDaemon.pipe(Effect.catchTag("DaemonUnreachable", (error) => unreachable(error.message)))
    return yield* request(api).pipe(
      Effect.catchAll((error: unknown) => {
        if (isPmfxError(error)) return failWith(error, json)
        const tagged = error as { readonly _tag?: string; readonly message?: string }
        if (tagged._tag === "RequestError") return unreachable(`lost the connection to the daemon: ${tagged.message ?? ""}`)
        return Console.error(`pmfx: unexpected answer from the daemon: ${tagged.message ?? String(error)}`).pipe(
          Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.unexpected })))
        )
      })
    )
  })
