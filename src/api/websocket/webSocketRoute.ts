/**
 * `GET /ws` on the API's router (docs/api.md, docs/architecture.md §9). Routes added to the router this way run with the
 * platform's default services only, so the services a session needs are read when the
 * layer is built and provided to each session. A plain GET without the upgrade answers 426.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { EventBus } from "../../events/EventBus"
import { SamplingDemand } from "../../monitor/SamplingDemand"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { LiveFeed } from "./LiveFeed"
import { webSocketSession } from "./webSocketSession"

export const WEBSOCKET_PATH = "/ws"

export const webSocketRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    // Only these services: the layer may be built inside a request (`PUT /daemon/web` opens the
    // TCP listener), and the whole context would carry that request into every session.
    const services = Context.make(LiveFeed, yield* LiveFeed).pipe(
      Context.add(EventBus, yield* EventBus),
      Context.add(ProcessManager, yield* ProcessManager),
      Context.add(SamplingDemand, yield* SamplingDemand)
    )
    yield* router.get(
      WEBSOCKET_PATH,
      webSocketSession.pipe(
        Effect.as(HttpServerResponse.empty()),
        Effect.catchTag("RequestError", () =>
          Effect.succeed(
            HttpServerResponse.unsafeJson(
              {
                success: false,
                error: "Upgrade Required: /ws is a WebSocket endpoint (send Connection: Upgrade and Upgrade: websocket)"
              },
              { status: 426, headers: { upgrade: "websocket", connection: "Upgrade" } }
            )
          )
        ),
        Effect.provide(services)
      )
    )
  })
).pipe(Layer.provide(LiveFeed.Default))
