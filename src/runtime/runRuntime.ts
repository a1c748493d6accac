/**
 * `pmfx-runtime` (docs/containers.md): the daemon's layer graph (DaemonGraph) run in the
 * foreground, in this one process, for one ecosystem file's apps — the CMD of a container. It
 * holds the daemon lock of its PMFX_HOME and serves the same API on the same socket (and `--web`),
 * so `pmfx list` inside the container talks to it; but it starts from an empty table (no
 * state.json is restored: a container starts fresh), and it ends when the apps have:
 *
 * - SIGTERM, SIGINT, SIGQUIT or `pmfx kill`: every app is stopped as the daemon stops them
 *   (dependents first, each with its kill_signal, SIGKILL after its kill_timeout), then exit 0;
 * - unless `--no-auto-exit`: an app reached `errored` (it crash-looped past max_restarts, or
 *   cannot start): every other app is stopped the same way, then exit 1, naming the errored apps
 *   and why on stderr — so the orchestrator restarts the container; or every app stopped by
 *   itself (autorestart off, `pmfx stop all`): exit 0.
 */
import { Context, Deferred, Effect, Exit, Layer, Ref, Schedule } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { LoadedEcosystem } from "../config/ConfigLoader"
import { acquireDaemonLock } from "../daemon/DaemonLock"
import { DaemonGraph } from "../daemon/DaemonGraph"
import { DaemonInfo } from "../daemon/DaemonInfo"
import type { ListenerLimits } from "../daemon/listenerLimits"
import { Paths } from "../shared/Paths"
import { HOME_ROLE, prepareDirectory } from "../daemon/prepareDirectory"
import type { WebSettings } from "../daemon/StateFile"
import { WebListener } from "../daemon/WebListener"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { Notifications } from "../events/Notifications"
import type { LogOutputSettings } from "../logs/LogOutput"
import { ProcessManager } from "../supervisor/ProcessManager"

/** Exit codes of `pmfx-runtime` (docs/containers.md). */
export const RuntimeExit = {
  /** Stopped as asked (a signal, `pmfx kill`), or every app ended without an error. */
  stopped: 0,
  /** An app reached `errored`. */
  errored: 1
} as const

export interface RuntimeStartOptions {
  readonly ecosystem: LoadedEcosystem
  /** The apps' base environment (the runtime's, without its API keys). */
  readonly env: Readonly<Record<string, string>>
  readonly logOutput: LogOutputSettings
  readonly web: WebSettings | undefined
  readonly listenerLimits: ListenerLimits
  readonly autoExit: boolean
}

const STOP_SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGTERM", "SIGINT", "SIGQUIT"]
/** How often the table is read to notice that every app has ended (a list in memory). */
const SETTLE_POLL_MS = 250

const settled = (rows: ReadonlyArray<ProcessSummary>): boolean =>
  rows.every((row) => row.status === "stopped" || row.status === "errored")

/** "api (id 0) after 3 restarts, last exit code 1" for each errored row. */
const describeErrored = (rows: ReadonlyArray<ProcessSummary>) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const lines: Array<string> = []
    for (const row of rows) {
      const detail = yield* manager.get(String(row.id)).pipe(Effect.option)
      const exit = detail._tag === "Some" ? detail.value.last_exit : null
      const how =
        exit === null || exit === undefined
          ? "it could not be started"
          : exit.signal !== null
            ? `last exit by ${exit.signal}`
            : `last exit code ${exit.code}`
      lines.push(
        `${row.name}${row.instance > 0 || rows.some((other) => other.name === row.name && other.id !== row.id) ? `/${row.instance}` : ""} (id ${row.id}) is errored after ${row.restarts} restart(s), ${how}`
      )
    }
    return lines
  })

export const runRuntime = (options: RuntimeStartOptions) =>
  Effect.gen(function* () {
    const paths = yield* Paths
    yield* prepareDirectory(paths.home, HOME_ROLE)
    yield* acquireDaemonLock(paths.daemonPid)
    fs.mkdirSync(path.dirname(paths.socket), { recursive: true, mode: 0o700 })
    fs.rmSync(paths.socket, { force: true })

    const context = yield* Layer.build(
      DaemonGraph.core({
        home: paths.home,
        socket: paths.socket,
        killed: false,
        listenerLimits: options.listenerLimits,
        logOutput: options.logOutput,
        host: "runtime"
      })
    )
    return yield* Effect.gen(function* () {
      const manager = yield* ProcessManager
      const daemon = yield* DaemonInfo
      const notifications = yield* Layer.build(DaemonGraph.notifications)
      const api = yield* Layer.build(DaemonGraph.api(paths.socket, daemon.listenerLimits)).pipe(
        Effect.provide(notifications)
      )
      if (options.web !== undefined) {
        yield* Ref.set(daemon.webSettings, options.web)
        yield* Context.get(api, WebListener)
          .open(options.web)
          .pipe(Effect.catchAll((error) => Effect.logError(`could not open the web listener: ${error.message}`)))
      }

      // A stop requested by a signal or `pmfx kill` ends the runtime once the apps have stopped.
      let stopSignal: NodeJS.Signals | null = null
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const onSignal = (signal: NodeJS.Signals) => {
            stopSignal ??= signal
            Deferred.unsafeDone(daemon.shutdown, Exit.void)
          }
          for (const signal of STOP_SIGNALS) process.on(signal, onSignal)
          return onSignal
        }),
        (onSignal) => Effect.sync(() => STOP_SIGNALS.forEach((signal) => process.off(signal, onSignal)))
      )

      const notes = Context.get(notifications, Notifications)
      if (options.ecosystem.webhooks.length > 0) yield* notes.mergeWebhooks(options.ecosystem.webhooks)
      if (options.ecosystem.alerts !== null) yield* notes.setGlobalRules(options.ecosystem.alerts)
      const rows = yield* manager.create(options.ecosystem.apps, { baseEnv: options.env })
      yield* Effect.logInfo(
        `pmfx-runtime ${process.pid} running ${rows.length} process(es) of ${options.ecosystem.apps.map((app) => app.name).join(", ")}; API on ${paths.socket}`
      )

      // An app errored, or every app stopped by itself: the end of the container, unless --no-auto-exit.
      const ended = yield* Deferred.make<number>()
      if (options.autoExit) {
        const check = Effect.gen(function* () {
          if (yield* Ref.get(daemon.stopping)) return true
          const current = yield* manager.list()
          const errored = current.filter((row) => row.status === "errored")
          if (errored.length === 0 && !settled(current)) return false
          if (errored.length === 0) {
            yield* Effect.logInfo("every app has stopped: exiting")
            return yield* Deferred.succeed(ended, RuntimeExit.stopped)
          }
          // Through the logger, as every message of the runtime: one JSON object per line with --json.
          for (const line of yield* describeErrored(errored)) yield* Effect.logError(line)
          yield* Effect.logError(
            `stopping every app and exiting with code ${RuntimeExit.errored}, so that the container is restarted ` +
              "(with --no-auto-exit the runtime keeps running instead, and `pmfx restart <app>` can start it again)"
          )
          return yield* Deferred.succeed(ended, RuntimeExit.errored)
        })
        yield* check.pipe(
          Effect.repeat({ schedule: Schedule.spaced(`${SETTLE_POLL_MS} millis`), until: (done) => done }),
          Effect.forkScoped
        )
      }

      const code = yield* Effect.raceFirst(
        Deferred.await(ended),
        Deferred.await(daemon.shutdown).pipe(Effect.as(RuntimeExit.stopped))
      )
      yield* Ref.set(daemon.stopping, true)
      yield* Effect.logInfo(`${stopSignal === null ? "" : `${stopSignal}: `}stopping every app`)
      yield* manager.shutdown()
      yield* Effect.logInfo("every app has stopped")
      return code
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped)
