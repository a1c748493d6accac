/**
 * One bus for everything that happens (docs/architecture.md §9): the WebSocket, webhooks, alerts and
 * `logs --follow` all subscribe here. Publishing never blocks the engine: the bus is a sliding
 * PubSub, so a subscriber that falls far behind loses the oldest events instead of holding memory.
 * Log lines are published only while someone listens for them, which keeps the log path free
 * when nobody follows.
 */
import { Effect, PubSub, Queue, Scope, Stream } from "effect"
import type { PmfxEvent } from "./PmfxEvent"

const CAPACITY = 16_384

export class EventBus extends Effect.Service<EventBus>()("pmfx/EventBus", {
  scoped: Effect.gen(function* () {
    const pubsub = yield* Effect.acquireRelease(PubSub.sliding<PmfxEvent>(CAPACITY), PubSub.shutdown)
    let logListeners = 0

    /** Offers an event from anywhere, including Node callbacks (no fiber needed). */
    const publishUnsafe = (event: PmfxEvent): void => {
      if (event._tag === "LogLine" && logListeners === 0) return
      pubsub.unsafeOffer(event)
    }

    /** A subscription for the life of the scope; `logs: true` also receives log lines. */
    const subscribe = (options?: {
      readonly logs?: boolean
    }): Effect.Effect<Queue.Dequeue<PmfxEvent>, never, Scope.Scope> =>
      Effect.gen(function* () {
        const queue = yield* PubSub.subscribe(pubsub)
        if (options?.logs === true) {
          logListeners++
          yield* Effect.addFinalizer(() => Effect.sync(() => logListeners--))
        }
        return queue
      })

    return {
      publish: (event: PmfxEvent) => Effect.sync(() => publishUnsafe(event)),
      publishUnsafe,
      /** Whether anyone wants log lines (the log writer skips building events otherwise). */
      wantsLogLines: () => logListeners > 0,
      subscribe,
      /** The events as a stream, subscribed when the stream starts. */
      stream: (options?: { readonly logs?: boolean }): Stream.Stream<PmfxEvent> =>
        Stream.unwrapScoped(Effect.map(subscribe(options), (queue) => Stream.fromQueue(queue)))
    }
  })
}) {}
