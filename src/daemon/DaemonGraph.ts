/**
 * The daemon's layer graph, assembled here and nowhere else (docs/architecture.md §2): the
 * background daemon (runDaemon.ts), the container runtime (runtime/runRuntime.ts) and a program
 * embedding pmfx (docs/library.md) build the same three stages.
 *
 *   core           Engine (ProcessManager, LogStore, EventBus, MetricsSampler, StdioPipes, Paths,
 *                  EngineOptions), MetricsHistory, ConfigLoader, SystemStatsReader, ApiTraffic
 *                  (GET /metrics), DaemonInfo, NotificationHistory (the recent alerts and webhook
 *                  deliveries, GET /api/alerts and /api/webhooks/deliveries)
 *   notifications  Notifications (Alerts + Webhooks watching the bus), or Notifications.none
 *   api            StateStore (state.json), WebListener (`pmfx web`, `--web`) and the API served
 *                  on the unix socket — one API server for every host
 *
 * They are stages rather than one merged layer because the daemon needs the order: notification
 * settings come back before the apps (a restored app's first crash is reported), and StateStore
 * only starts saving once the restored apps are in the table.
 */
import { Layer } from "effect"
import { serveOnSocket } from "../api/ApiServer"
import { ConfigLoader } from "../config/ConfigLoader"
import { NotificationHistory } from "../events/NotificationHistory"
import { Notifications } from "../events/Notifications"
import type { LogOutputSettings } from "../logs/LogOutput"
import { ApiTraffic } from "../metrics/ApiTraffic"
import { MetricsHistory } from "../monitor/MetricsHistory"
import { SystemStatsReader } from "../monitor/systemStats"
import { Engine } from "../supervisor/Engine"
import type { EngineSettings } from "../supervisor/EngineOptions"
import { DaemonInfo } from "./DaemonInfo"
import { defaultListenerLimits, type ListenerLimits } from "./listenerLimits"
import { StateStore } from "./StateStore"
import { WebListenerLive } from "./WebListenerLive"

export interface DaemonCoreOptions {
  readonly home: string
  readonly socket: string
  /** Whether `pmfx kill` left the apps stopped (state.json). */
  readonly killed: boolean
  readonly listenerLimits?: ListenerLimits | undefined
  readonly engine?: Partial<EngineSettings> | undefined
  /** Where app output goes besides (or instead of) the log files: the runtime's console. */
  readonly logOutput?: LogOutputSettings | undefined
  /** `runtime` for pmfx-runtime: the API then refuses to hand the apps over (`pmfx daemon restart`). */
  readonly host?: "daemon" | "runtime" | undefined
}

export const DaemonGraph = {
  /** The engine and the services the API reads from. */
  core: (options: DaemonCoreOptions) =>
    Layer.mergeAll(
      // The dashboard's 15-minute charts (metrics?history=…), fed by the engine's bus.
      MetricsHistory.Default,
      ConfigLoader.Default,
      SystemStatsReader.Default,
      ApiTraffic.Default,
      // The last 100 alerts and webhook deliveries, in memory (docs/decisions.md); Webhooks reports to it.
      NotificationHistory.Default,
      DaemonInfo.make({
        home: options.home,
        socket: options.socket,
        killed: options.killed,
        listenerLimits: options.listenerLimits,
        host: options.host
      })
    ).pipe(Layer.provideMerge(Engine.at(options.home, options.engine ?? {}, options.logOutput))),
  /** Alerts and webhook delivery (needs the core). */
  notifications: Notifications.Live,
  /** No notifications: settings are not kept, nothing is delivered. */
  noNotifications: Notifications.none,
  /**
   * state.json, the TCP listener (closed until opened) and the API on `socket` (needs the core and
   * Notifications). `GET /metrics` is a route of this same server.
   */
  api: (socket: string, limits: ListenerLimits = defaultListenerLimits()) =>
    serveOnSocket(socket, limits).pipe(Layer.provideMerge(WebListenerLive), Layer.provideMerge(StateStore.Default))
}
