/**
 * The daemon (docs/architecture.md §5): one per PMFX_HOME. It loads state.json (moving a corrupt one aside),
 * adopts the apps a predecessor left running (or stops those that should not run, see
 * reclaimProcesses), restores the webhooks and alert thresholds, then the
 * apps (starting those that should run, unless `pmfx kill` stopped them), then serves the API on
 * its socket until SIGTERM/SIGINT or `pmfx kill`. Stopping keeps every app's desired state, so
 * the next daemon brings back exactly what was running; `pmfx daemon restart` ends it without
 * stopping the apps, for the next daemon to adopt. `pmfx daemon --web` and `--config`
 * (`DaemonStartOptions`) open a listener that wins over the saved one, and add an ecosystem
 * file's apps once the saved ones are back.
 */
import { Context, Deferred, Effect, Exit, Layer, Ref } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { LoadedEcosystem } from "../config/ConfigLoader"
import { Notifications } from "../events/Notifications"
import { ProcessManager } from "../supervisor/ProcessManager"
import { acquireDaemonLock } from "./DaemonLock"
import { DaemonInfo } from "./DaemonInfo"
import { narrowPath, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../logs/privateFiles"
import { homeModeWarning } from "../shared/homePaths"
import { heldByKill } from "./heldByKill"
import { reclaimProcesses } from "./reclaimProcesses"
import type { ListenerLimits } from "./listenerLimits"
import { Paths } from "../shared/Paths"
import { HOME_ROLE, prepareDirectory } from "./prepareDirectory"
import { emptyState, readStateFile } from "./StateFile"
import { WebListener } from "./WebListener"
import { DaemonGraph } from "./DaemonGraph"
import type { WebSettings } from "./StateFile"
import { startEcosystem } from "./startEcosystem"

export interface DaemonStartOptions {
  /** `--web`: the listener to open at start, instead of the one state.json remembers. */
  readonly web?: WebSettings | undefined
  /** `--config`: the loaded file whose apps the daemon creates when it does not hold them yet. */
  readonly ecosystem?: { readonly loaded: LoadedEcosystem; readonly env: Readonly<Record<string, string>> } | undefined
  /** `--header-timeout`, `--request-timeout`, `--keep-alive-timeout`, `--max-connections`. */
  readonly listenerLimits?: ListenerLimits | undefined
}

export const runDaemon = (options: DaemonStartOptions = {}) =>
  Effect.gen(function* () {
    const paths = yield* Paths
    yield* prepareDirectory(paths.home, HOME_ROLE)
    yield* acquireDaemonLock(paths.daemonPid)
    // Logs may hold secrets: the daemon's own folders and files are its user's alone, also when an
    // older pmfx created them wider; a wide home is the user's choice, and only warned about.
    narrowPath(paths.logs, PRIVATE_DIR_MODE)
    narrowPath(paths.daemonLog, PRIVATE_FILE_MODE)
    const homeWarning = homeModeWarning(paths.home, fs.statSync(paths.home).mode)
    if (homeWarning !== null) yield* Effect.logWarning(homeWarning)
    // We hold the lock, so a socket file left here belongs to a daemon that is gone.
    fs.mkdirSync(path.dirname(paths.socket), { recursive: true, mode: 0o700 })
    fs.rmSync(paths.socket, { force: true })
    if (path.dirname(paths.socket) !== paths.home)
      yield* Effect.logInfo(`PMFX_HOME is too long for a unix socket path: the socket is ${paths.socket}`)

    const loaded = yield* readStateFile(paths.state)
    if (loaded._tag === "Corrupt") {
      yield* Effect.logError(`state.json ${loaded.reason}; moved it to ${loaded.movedTo} and starting with no apps`)
    }
    const state = loaded._tag === "Loaded" ? loaded.state : emptyState
    const held = heldByKill(state.engine, state.killed)
    const reclaimed = yield* reclaimProcesses(state.engine, { held, pipesDir: paths.pipes })
    if (reclaimed.stopped.length > 0)
      yield* Effect.logInfo(
        `stopped ${reclaimed.stopped.length} process group(s) an earlier daemon left: ${reclaimed.stopped.join(", ")}`
      )
    if (reclaimed.adopt.size > 0) {
      yield* Effect.logInfo(
        `adopting ${reclaimed.adopt.size} running process(es): ${[...reclaimed.adopt.values()].map((a) => a.pid).join(", ")}`
      )
    }

    const context = yield* Layer.build(
      DaemonGraph.core({
        home: paths.home,
        socket: paths.socket,
        killed: state.killed,
        listenerLimits: options.listenerLimits
      })
    )
    yield* Effect.gen(function* () {
      const manager = yield* ProcessManager
      const daemon = yield* DaemonInfo
      // Alerts and webhook delivery watch the bus for the daemon's life (docs/architecture.md §9). They come back
      // with their saved settings before the apps do, so a restored app's first crash is reported.
      const notifications = yield* Layer.build(DaemonGraph.notifications)
      yield* Context.get(notifications, Notifications).setWebhooks(state.webhooks ?? [])
      yield* Context.get(notifications, Notifications).setGlobalRules(state.alerts ?? null)
      const restored = yield* manager.restore(state.engine, { keepStopped: held, adopt: reclaimed.adopt })
      const api = yield* Layer.build(DaemonGraph.api(paths.socket, daemon.listenerLimits)).pipe(
        Effect.provide(notifications)
      )
      const web = Context.get(api, WebListener)
      // The TCP listener of `pmfx web` comes back with the daemon (the one of `--web` wins over it,
      // and is remembered in its place); its settings stay saved even when the port is taken now, so
      // a later start tries again — the apps keep running meanwhile.
      const webSettings = options.web ?? state.web
      if (webSettings !== undefined) {
        yield* Ref.set(daemon.webSettings, webSettings)
        yield* web
          .open(webSettings)
          .pipe(
            Effect.catchAll((error) =>
              Effect.logError(
                `could not ${options.web === undefined ? "re-open" : "open"} the web listener: ${error.message}`
              )
            )
          )
      }
      // After the API is up, so that starting many apps never keeps the CLI waiting for the socket.
      if (options.ecosystem !== undefined) {
        yield* startEcosystem(options.ecosystem.loaded, options.ecosystem.env).pipe(Effect.provide(notifications))
      }
      // SIGTERM and SIGINT end the daemon the way `pmfx kill` does — not by interruption, which
      // would close the server first: apps stop while the API still answers (SERVICE_UNAVAILABLE
      // for new requests), then the scopes close.
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const onSignal = (signal: NodeJS.Signals) => {
            Effect.runFork(Effect.logInfo(`${signal}: shutting down`))
            Deferred.unsafeDone(daemon.shutdown, Exit.void)
          }
          process.on("SIGTERM", onSignal)
          process.on("SIGINT", onSignal)
          return onSignal
        }),
        (onSignal) =>
          Effect.sync(() => {
            process.off("SIGTERM", onSignal)
            process.off("SIGINT", onSignal)
          })
      )
      const stopApps = Ref.set(daemon.stopping, true).pipe(
        Effect.zipRight(Ref.get(daemon.handOver)),
        Effect.flatMap((handOver) =>
          handOver
            ? Effect.logInfo("handing every app over to the next daemon (they keep running)").pipe(
                Effect.zipRight(manager.handOver())
              )
            : Effect.logInfo("stopping every app").pipe(Effect.zipRight(manager.shutdown()))
        )
      )
      yield* Effect.logInfo(
        `pmfx daemon ${process.pid} ready on ${paths.socket}: ${restored.length} process(es) restored${held.size > 0 ? ` (${held.size} kept stopped after pmfx kill)` : ""}`
      )
      yield* Deferred.await(daemon.shutdown)
      yield* stopApps
    }).pipe(Effect.provide(context))
  }).pipe(Effect.scoped)
