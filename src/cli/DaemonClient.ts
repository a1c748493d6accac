/**
 * The CLI's way to the daemon: the typed client derived from the API contract, over the unix
 * socket. `ensureDaemon` starts the daemon in the background when none answers (DESIGN §9): it
 * gets none of the CLI's environment but PMFX_HOME, writes daemon.log, and the CLI waits until it
 * answers.
 */
import { HttpApiClient, HttpClient } from "@effect/platform"
import { Data, Duration, Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { PmfxApi } from "../api/Api"
import { Paths } from "../daemon/Paths"
import { socketHttpClient } from "../daemon/socketHttpClient"

export class DaemonUnreachable extends Data.TaggedError("DaemonUnreachable")<{ readonly message: string; readonly socket: string }> {}

const START_TIMEOUT = Duration.seconds(15)
const PROBE_TIMEOUT = Duration.seconds(2)

/** The daemon bundle sits next to the CLI bundle in dist/. */
const daemonScript = () => path.join(path.dirname(process.argv[1] ?? __filename), "daemon.cjs")

export class DaemonClient extends Effect.Service<DaemonClient>()("pmfx/DaemonClient", {
  effect: Effect.gen(function* () {
    const paths = yield* Paths
    const api = yield* HttpApiClient.make(PmfxApi, { baseUrl: "http://pmfx" }).pipe(
      Effect.provideService(HttpClient.HttpClient, socketHttpClient(paths.socket))
    )
    // A probe gives up after PROBE_TIMEOUT: a daemon that is starting accepts connections on its
    // socket before its request handler is attached, and a request sent in that moment is never
    // answered (the next probe is).
    const answers = api.service.info().pipe(
      Effect.timeout(PROBE_TIMEOUT),
      Effect.as(true),
      Effect.catchAll(() => Effect.succeed(false))
    )

    const startInBackground = Effect.sync(() => {
      fs.mkdirSync(paths.home, { recursive: true, mode: 0o700 })
      const log = fs.openSync(paths.daemonLog, "a", 0o600)
      const child = spawn(process.execPath, [daemonScript()], {
        detached: true,
        stdio: ["ignore", log, log],
        env: { PMFX_HOME: paths.home },
        cwd: paths.home
      })
      child.unref()
      fs.closeSync(log)
    })

    /** The client, after making sure a daemon answers (starting one if needed). */
    const ensureDaemon = Effect.gen(function* () {
      if (yield* answers) return api
      yield* startInBackground
      const up = yield* answers.pipe(
        Effect.repeat({ schedule: Schedule.spaced(Duration.millis(30)), until: (ok) => ok }),
        Effect.timeoutOption(START_TIMEOUT)
      )
      // (The repeat ends only once the daemon answers; its value is the schedule's count, not a flag.)
      if (up._tag === "None") {
        return yield* new DaemonUnreachable({
          message: `the daemon did not answer on ${paths.socket} within ${Duration.toSeconds(START_TIMEOUT)}s; see ${paths.daemonLog}`,
          socket: paths.socket
        })
      }
      return api
    })

    return { api, answers, ensureDaemon, paths }
  })
}) {}
