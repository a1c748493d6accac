/** The implementation of `WebListener`: the API served over TCP in a scope of its own. */
import { Context, Effect, Exit, Layer, Ref, Scope } from "effect"
import type * as http from "node:http"
import { serveOnTcp } from "../api/ApiServer"
import { listenerUrl } from "../api/webGuard"
import { BadRequest, PortInUse } from "../domain/errors"
import { DaemonInfo } from "./DaemonInfo"
import type { WebSettings } from "./StateFile"
import { WebListener, type WebListenerState } from "./WebListener"

type TcpRequirements = Exclude<Layer.Layer.Context<ReturnType<typeof serveOnTcp>>, WebListener>

const stateOf = (settings: WebSettings, listening: boolean): WebListenerState => ({
  host: settings.host,
  port: settings.port,
  auth: settings.apiKey !== undefined || settings.readOnlyApiKey !== undefined,
  url: listenerUrl(settings.host, settings.port),
  listening
})

export const WebListenerLive = Layer.scoped(
  WebListener,
  Effect.gen(function* () {
    const context = yield* Effect.context<TcpRequirements>()
    const daemon = yield* DaemonInfo
    const lock = yield* Effect.makeSemaphore(1)
    let current: {
      readonly settings: WebSettings
      readonly scope: Scope.CloseableScope
      readonly server: http.Server | undefined
    } | null = null

    const closeCurrent = Effect.suspend(() => {
      const open = current
      current = null
      if (open === null) return Effect.succeed(null)
      // server.close() waits for keep-alive and streaming connections; end them first.
      open.server?.closeAllConnections()
      return Scope.close(open.scope, Exit.void).pipe(
        Effect.zipRight(Ref.set(daemon.web, null)),
        Effect.as(open.settings)
      )
    })

    const start = (settings: WebSettings): Effect.Effect<WebListenerState, PortInUse | BadRequest> =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        let server: http.Server | undefined
        const built = yield* Layer.buildWithScope(
          serveOnTcp(settings, daemon.listenerLimits, (created) => {
            server = created
          }),
          scope
        ).pipe(Effect.provide(Context.add(context, WebListener, self)), Effect.either)
        if (built._tag === "Left") {
          yield* Scope.close(scope, Exit.void)
          const cause = built.left.cause as NodeJS.ErrnoException | undefined
          if (cause?.code === "EADDRINUSE") {
            return yield* new PortInUse({
              message: `port ${settings.port} is already in use on ${settings.host}`,
              details: { port: settings.port, suggestion: "choose another --port, or stop what listens there" }
            })
          }
          const reason = cause?.message ?? String(built.left)
          return yield* new BadRequest({
            message: `cannot listen on ${settings.host}:${settings.port}: ${reason}`,
            details: {
              field: "host",
              reason,
              suggestion: "give a host name or address of this machine, and a free port"
            }
          })
        }
        current = { settings, scope, server }
        const state = stateOf(settings, true)
        yield* Ref.set(daemon.web, { host: state.host, port: state.port, auth: state.auth })
        yield* Effect.logInfo(
          `web listener open on ${state.url}${state.auth ? " (API key required)" : " (no API key)"}`
        )
        return state
      })

    const self: Context.Tag.Service<WebListener> = {
      open: (settings) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const previous = current
            // On another port the new listener opens first, so a failure keeps the old one.
            if (previous !== null && previous.settings.port === settings.port) yield* closeCurrent
            const state = yield* start(settings).pipe(
              Effect.tap(() =>
                Effect.gen(function* () {
                  if (previous !== null && previous.settings.port !== settings.port) {
                    previous.server?.closeAllConnections()
                    yield* Scope.close(previous.scope, Exit.void)
                  }
                })
              ),
              Effect.tapError(() =>
                previous !== null && previous.settings.port !== settings.port
                  ? Effect.sync(() => (current = previous))
                  : Effect.void
              )
            )
            yield* Ref.set(daemon.webSettings, settings)
            return state
          })
        ),
      close: lock.withPermits(1)(
        Effect.gen(function* () {
          const closed = yield* closeCurrent
          yield* Ref.set(daemon.webSettings, null)
          if (closed !== null) yield* Effect.logInfo(`web listener on ${listenerUrl(closed.host, closed.port)} closed`)
          return closed === null ? null : stateOf(closed, false)
        })
      )
    }
    yield* Effect.addFinalizer(() => closeCurrent)
    return self
  })
)
