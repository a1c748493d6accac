/**
 * Daemon concerns around every request: while the daemon shuts down, new requests get
 * SERVICE_UNAVAILABLE (503); after a request that may have changed something, state.json is saved
 * before the response leaves — so a daemon killed right after answering has recorded the change.
 * A successful answer whose change could not be saved becomes that failure (INSUFFICIENT_RESOURCES
 * for a full disk, FILE_ERROR otherwise): the API never says "done" for a change it would forget.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect, Ref } from "effect"
import { DaemonInfo } from "../daemon/DaemonInfo"
import { StateStore } from "../daemon/StateStore"
import { toWire } from "../domain/ErrorWire"
import { errorMeta, ServiceUnavailable } from "../domain/errors"

export const daemonMiddleware = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.gen(function* () {
    const daemon = yield* DaemonInfo
    if (yield* Ref.get(daemon.stopping)) {
      const error = new ServiceUnavailable({
        message: "the daemon is shutting down",
        details: { reason: "shutting down" }
      })
      return HttpServerResponse.unsafeJson(toWire(error), { status: 503 })
    }
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* app
    if (request.method !== "GET" && request.method !== "HEAD") {
      const store = yield* StateStore
      const saved = yield* Effect.either(store.save)
      // An answer that is already an error keeps its own code: nothing the user must redo was done.
      if (saved._tag === "Left" && response.status < 400) {
        return HttpServerResponse.unsafeJson(toWire(saved.left), { status: errorMeta[saved.left._tag].status })
      }
    }
    return response
  })
