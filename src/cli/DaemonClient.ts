/**
 * The CLI's way to the daemon: the typed client derived from the API contract, over the unix
 * socket — or, with `--url` / PMFX_URL (`DaemonTarget`), over a remote daemon's TCP listener with
 * the API key as `Authorization: Bearer`. Locally, `ensureDaemon` starts the daemon in the
 * background when none answers (docs/architecture.md §10): it inherits the CLI's environment (but the variables
 * `daemonEnvironment.ts` keeps from it) with PMFX_HOME, writes daemon.log, and the CLI waits until
 * it answers. A remote daemon is never started: the
 * first request that cannot reach it is the DAEMON_UNREACHABLE.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, Option, Schedule } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { lockHolder } from "../daemon/DaemonLock"
import { daemonArguments } from "../daemon/daemonNodeFlags"
import { environmentForDaemon } from "../daemon/daemonEnvironment"
import { Paths } from "../shared/Paths"
import { fromSystemError, HOME_ROLE, prepareDirectory } from "../daemon/prepareDirectory"
import { socketHttpClient } from "../daemon/socketHttpClient"
import { CallerEnvironment } from "./CallerEnvironment"
import { DaemonTarget } from "./DaemonTarget"
import { lazyApiClient } from "./lazyApiClient"
import { socketAnswers } from "./socketProbe"
import { tcpHttpClient } from "./tcpHttpClient"

export class DaemonUnreachable extends Data.TaggedError("DaemonUnreachable")<{
  readonly message: string
  readonly socket: string
}> {}

const START_TIMEOUT = Duration.seconds(15)
const PROBE_TIMEOUT = Duration.seconds(2)
/** Pause before starting another daemon when the one started has already left (the lock was held). */
const RESTART_DELAY = Duration.millis(300)

/**
 * The launcher (`dist/pmfx.cjs daemon`), which loads the daemon bundle from its code cache. It sits
 * next to the CLI bundle in dist/ (`__dirname` there: argv[1] may be npm's symlink in .bin/).
 */
const launcherScript = () => path.join(__dirname, "pmfx.cjs")

export class DaemonClient extends Effect.Service<DaemonClient>()("pmfx/DaemonClient", {
  effect: Effect.gen(function* () {
    const paths = yield* Paths
    const target = yield* DaemonTarget
    const caller = yield* CallerEnvironment
    /** The HTTP client and base URL every request goes through (the SSE stream of `logs -f` too). */
    const http: HttpClient.HttpClient =
      target._tag === "Local"
        ? socketHttpClient(paths.socket)
        : Option.match(target.apiKey, {
            onNone: () => tcpHttpClient,
            onSome: (key) => HttpClient.mapRequest(tcpHttpClient, HttpClientRequest.bearerToken(key))
          })
    const baseUrl = target._tag === "Local" ? "http://pmfx" : target.url
    /** Where the daemon is, for messages: its socket or its URL. */
    const address = target._tag === "Local" ? paths.socket : target.url
    const api = lazyApiClient(http, baseUrl)
    // A probe gives up after PROBE_TIMEOUT: a daemon that is starting accepts connections on its
    // socket before its request handler is attached, and a request sent in that moment is never
    // answered (the next probe is). Locally it is a plain request (socketProbe.ts), not the typed client.
    const probe: Effect.Effect<boolean, unknown> =
      target._tag === "Local" ? socketAnswers(paths.socket) : Effect.as(api.service.info(), true)
    const answers = probe.pipe(
      Effect.timeout(PROBE_TIMEOUT),
      Effect.catchAll(() => Effect.succeed(false))
    )

    /**
     * Starts a daemon in the background; `exited` turns true when that process ends. A home that
     * cannot be used is a FILE_ERROR here, before anything runs.
     */
    const startInBackground = prepareDirectory(paths.home, HOME_ROLE).pipe(
      Effect.zipRight(
        Effect.try({
          try: () => fs.openSync(paths.daemonLog, "a", 0o600),
          catch: (error) => fromSystemError(paths.home, HOME_ROLE, error, paths.daemonLog)
        })
      ),
      Effect.flatMap((log) =>
        Effect.sync(() => {
          const child = spawn(process.execPath, daemonArguments(launcherScript()), {
            detached: true,
            stdio: ["ignore", log, log],
            env: environmentForDaemon(caller.env, paths.home),
            cwd: paths.home
          })
          const started = { exited: false }
          child.on("exit", () => {
            started.exited = true
          })
          child.on("error", () => {
            started.exited = true
          })
          child.unref()
          fs.closeSync(log)
          return started
        })
      )
    )

    /**
     * The client, after making sure a daemon answers (starting a local one if needed). A daemon
     * started here leaves at once when the lock is held by a daemon that is still dying (stopping
     * its apps, or killed and not yet reaped): then another is started, until one answers or
     * START_TIMEOUT has passed (docs/decisions.md, "The daemon lock knows its owner").
     */
    const ensureDaemon = Effect.gen(function* () {
      if (target._tag === "Remote") return api
      if (yield* answers) return api
      let started = yield* startInBackground
      const up = yield* Effect.gen(function* () {
        if (yield* answers) return true
        if (started.exited) {
          yield* Effect.sleep(RESTART_DELAY)
          if (yield* answers) return true
          started = yield* startInBackground
        }
        return false
      }).pipe(
        Effect.repeat({ schedule: Schedule.spaced(Duration.millis(30)), until: (ok) => ok }),
        Effect.timeoutOption(START_TIMEOUT)
      )
      // (The repeat ends only once the daemon answers; its value is the schedule's count, not a flag.)
      if (up._tag === "None") {
        // A live daemon that holds the lock and does not answer is stuck: say which one.
        const holder = lockHolder(paths.daemonPid)
        return yield* new DaemonUnreachable({
          message:
            holder === null
              ? `the daemon did not answer on ${paths.socket} within ${Duration.toSeconds(START_TIMEOUT)}s; see ${paths.daemonLog}`
              : `the daemon (pid ${holder}) holds ${paths.daemonPid} but did not answer on ${paths.socket} within ${Duration.toSeconds(START_TIMEOUT)}s\n  suggestion: see ${paths.daemonLog}; if it is stuck, stop it with \`kill ${holder}\` and run the command again`,
          socket: paths.socket
        })
      }
      return api
    })

    return { api, answers, ensureDaemon, paths, target, http, baseUrl, address }
  })
}) {}
