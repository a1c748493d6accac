/**
 * Runs an effect once the answer to a request has left. `POST /daemon/kill` and
 * `/daemon/hand-over` end the daemon, and its end closes the listener: begun at once, it could cut
 * off the very answer that announces it. It used to begin after a fixed 50 ms, which only guessed
 * how long the write takes (and made every `pmfx kill` wait for it).
 */
import type { HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Duration, Effect } from "effect"
import type { ServerResponse } from "node:http"

/**
 * The longest wait for the answer to go: Node's `close` comes once its last byte is handed to the
 * socket, or when the client has gone; this bound is only there so that a daemon told to end
 * always ends.
 */
const SEND_BOUND = Duration.seconds(2)

/**
 * Forks `effect` (as a daemon fiber: the request's own fiber ends first) to run when Node's
 * response to `request` emits `close`. A request that did not come through Node's server (a
 * handler called in memory) has no response to wait for: `effect` runs at once.
 */
export const afterResponse = (
  request: HttpServerRequest.HttpServerRequest,
  effect: Effect.Effect<void>
): Effect.Effect<void> => {
  const response = NodeHttpServerRequest.toServerResponse(request) as ServerResponse | undefined
  const sent =
    response === undefined
      ? Effect.void
      : Effect.async<void>((resume) => {
          const done = () => resume(Effect.void)
          response.once("close", done)
          return Effect.sync(() => response.off("close", done))
        }).pipe(Effect.timeoutOption(SEND_BOUND))
  return Effect.asVoid(Effect.forkDaemon(Effect.zipRight(sent, effect)))
}
