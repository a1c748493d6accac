/**
 * Daemon concerns around every request: while the daemon shuts down, new requests get
 * SERVICE_UNAVAILABLE (503); after a request that may have changed something, state.json is saved
 * before the response leaves — so a daemon killed right after answering has recorded the change.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect, Ref } from "effect"
import { DaemonInfo } from "../daemon/DaemonInfo"
import { StateStore } from "../daemon/StateStore"
import { toWire } from "../domain/ErrorWire"
import { ServiceUnavailable } from "../domain/errors"

export const daemonMiddleware = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.gen(function* () {
    const daemon = yield* DaemonInfo
    if (yield* Ref.get(daemon.stopping)) {
      const error = new ServiceUnavailable({ message: "the daemon is shutting down", details: { reason: "shutting down" } })
      return HttpServerResponse.unsafeJson(toWire(error), { status: 503 })
    }
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* app
    if (request.method !== "GET" && request.method !== "HEAD") {
      const store = yield* StateStore
      yield* store.save
    }
    return response
  })
