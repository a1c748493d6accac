/**
 * One bus for everything that happens (docs/architecture.md §9): the WebSocket, webhooks, alerts and
 * `logs --follow` all subscribe here. Publishing never blocks the engine: the bus is made of sliding
 * PubSubs, so a subscriber that falls far behind loses the oldest events instead of holding memory.
 *
 * Two hubs, because a bounded PubSub allocates its whole ring (16 bytes a slot) when it is made:
 * - every event but log lines goes through `events` (4,096 slots, 64 KB), which the daemon's own
 *   listeners (alerts, webhooks, history, the state file) read as fast as it is written;
 * - a subscriber that wants log lines reads `logs` (16,384 slots: a log flood is thousands of lines
 *   a second), which carries every event, log lines included. It exists only while someone follows
 *   logs: made by the first such subscription, shut down when the last one ends. Log lines are
 *   built and published only then, which keeps the log path free when nobody follows.
 * An idle daemon kept 0.5 MB of empty slots with one 16,384-slot hub for everything
 * (docs/benchmarks.md, "The daemon's memory, fifth pass").
 */
import { Effect, PubSub, Queue, Scope, Stream } from "effect"
import type { PmfxEvent } from "./PmfxEvent"

const EVENTS_CAPACITY = 4_096
const LOGS_CAPACITY = 16_384

export class EventBus extends Effect.Service<EventBus>()("pmfx/EventBus", {
  scoped: Effect.gen(function* () {
    const events = yield* Effect.acquireRelease(PubSub.sliding<PmfxEvent>(EVENTS_CAPACITY), PubSub.shutdown)
    let logs: PubSub.PubSub<PmfxEvent> | null = null
    let logListeners = 0
    /** Making and dropping the log hub is one step at a time (subscriptions may start and end together). */
    const logsLock = yield* Effect.makeSemaphore(1)
    yield* Effect.addFinalizer(() => Effect.suspend(() => (logs === null ? Effect.void : PubSub.shutdown(logs))))

    /** Offers an event from anywhere, including Node callbacks (no fiber needed). */
    const publishUnsafe = (event: PmfxEvent): void => {
      if (event._tag !== "LogLine") events.unsafeOffer(event)
      logs?.unsafeOffer(event)
    }

    /** The log hub for one more subscriber, made when it is the first. */
    const joinLogs = logsLock.withPermits(1)(
      Effect.gen(function* () {
        logs ??= yield* PubSub.sliding<PmfxEvent>(LOGS_CAPACITY)
        logListeners++
        return logs
      })
    )
    /** One subscriber fewer; the last one takes the hub (and its ring) away. */
    const leaveLogs = logsLock.withPermits(1)(
      Effect.suspend(() => {
        logListeners--
        if (logListeners > 0 || logs === null) return Effect.void
        const hub = logs
        logs = null
        return PubSub.shutdown(hub)
      })
    )

    /** A subscription for the life of the scope; `logs: true` also receives log lines. */
    const subscribe = (options?: {
      readonly logs?: boolean
    }): Effect.Effect<Queue.Dequeue<PmfxEvent>, never, Scope.Scope> =>
      options?.logs === true
        ? Effect.flatMap(
            Effect.acquireRelease(joinLogs, () => leaveLogs),
            PubSub.subscribe
          )
        : PubSub.subscribe(events)

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
