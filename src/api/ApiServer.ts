/** The API with its handlers, served on a unix socket (the daemon's channel to the CLI). */
import { HttpApiBuilder } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import type * as http from "node:http"
import { PmfxApi } from "../shared/Api"
import { daemonMiddleware } from "./daemonMiddleware"
import { errorResponses } from "./errorResponses"
import { lazyOpenApiRoute } from "./lazyOpenApi"
import { webGuard } from "./webGuard"
import { serveDashboard } from "./dashboard/dashboardAssets"
import { webSocketRoute } from "./websocket/webSocketRoute"
import type { WebSettings } from "../daemon/StateFile"
import { limitedServer, type ListenerLimits } from "../daemon/listenerLimits"
import { ProcessesHandlers } from "./handlers/processes"
import { DaemonHandlers, ServiceHandlers, SystemHandlers } from "./handlers/system"
import { MetricsHandlers } from "./handlers/metrics"
import { HistoryHandlers } from "./handlers/history"
import { ApiTraffic } from "../metrics/ApiTraffic"

export const ApiLive = HttpApiBuilder.api(PmfxApi).pipe(
  Layer.provide([ServiceHandlers, ProcessesHandlers, SystemHandlers, HistoryHandlers, MetricsHandlers, DaemonHandlers])
)

/**
 * Serves the API on `socketPath`, mode 0600: the file's permissions are the socket's
 * authentication (only the daemon's user may connect). `limits`: timeouts and connection cap
 * (listenerLimits.ts).
 *
 * Both middlewares wrap the router (API-level, `HttpApiBuilder.middleware`), not the served app
 * (`HttpApiBuilder.serve(middleware)`): by the time a served-app middleware sees the outcome, the
 * platform has already written the response — its own empty one for an unknown route or an
 * unreadable body, and the handler's for everything else — so `errorResponses` could not replace
 * the former and `daemonMiddleware` would save state.json only after the answer had left.
 * `errorResponses` sits inside, so `daemonMiddleware` sees every request end as a response.
 * `ApiTraffic.countTraffic` is outermost on both listeners: `GET /metrics` counts every answer.
 */
export const serveOnSocket = (socketPath: string, limits: ListenerLimits) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(lazyOpenApiRoute),
    Layer.provide(webSocketRoute),
    Layer.provide(
      HttpApiBuilder.middleware(
        (app) => Effect.flatMap(ApiTraffic, (traffic) => traffic.countTraffic(daemonMiddleware(errorResponses(app)))),
        { withContext: true }
      )
    ),
    Layer.provide(ApiLive),
    Layer.provide(
      Layer.effectDiscard(Effect.sync(() => fs.chmodSync(socketPath, 0o600))).pipe(
        Layer.provideMerge(NodeHttpServer.layer(() => limitedServer(limits, "unix socket"), { path: socketPath }))
      )
    )
  )

/**
 * Serves the same API over TCP (`pmfx web`), with `webGuard` outermost: daemon routes answer 404,
 * and keys, Host and Origin are checked before anything else runs; then the dashboard's files
 * (`/ui/`, and `/` for a browser: dashboard/dashboardAssets.ts). `onServer` receives the node
 * server (so the owner can drop its open connections when it closes the listener).
 */
export const serveOnTcp = (settings: WebSettings, limits: ListenerLimits, onServer: (server: http.Server) => void) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(lazyOpenApiRoute),
    Layer.provide(webSocketRoute),
    Layer.provide(
      HttpApiBuilder.middleware(
        (app) =>
          Effect.flatMap(ApiTraffic, (traffic) =>
            traffic.countTraffic(webGuard(settings)(serveDashboard(daemonMiddleware(errorResponses(app)))))
          ),
        { withContext: true }
      )
    ),
    Layer.provide(ApiLive),
    Layer.provide(
      NodeHttpServer.layer(
        () => {
          // Without a Host header node would answer 400 itself, before the guard's 403 could.
          const server = limitedServer(limits, "web listener", { requireHostHeader: false })
          onServer(server)
          return server
        },
        { host: settings.host, port: settings.port }
      )
    )
  )
