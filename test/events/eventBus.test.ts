/**
 * The EventBus (docs/architecture.md §9): every subscriber gets the events published after it
 * subscribed, in order; log lines reach only the subscribers that asked for them, and only while
 * one does (the log hub exists only then, and comes back for the next one).
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Queue } from "effect"
import { EventBus } from "../../src/events/EventBus"
import type { PmfxEvent } from "../../src/events/PmfxEvent"

const status = (id: number): PmfxEvent => ({
  _tag: "ProcessStatus",
  id,
  name: "api",
  instance: 0,
  status: "online",
  previous_status: "starting",
  pid: 100 + id
})
const line = (message: string): PmfxEvent => ({
  _tag: "LogLine",
  id: 0,
  name: "api",
  instance: 0,
  entry: { timestamp: null, app: "api", instance: 0, stream: "out", level: "info", message }
})
const describeEvent = (event: PmfxEvent) => (event._tag === "LogLine" ? `log:${event.entry.message}` : event._tag)
const drain = (queue: Queue.Dequeue<PmfxEvent>) =>
  Effect.map(Queue.takeAll(queue), (events) => Chunk.toArray(events).map(describeEvent))

describe("EventBus", () => {
  it.scoped("gives log lines only to the subscribers that want them, and builds none while nobody does", () =>
    Effect.gen(function* () {
      const bus = yield* EventBus
      const plain = yield* bus.subscribe()
      expect(bus.wantsLogLines()).toBe(false)
      bus.publishUnsafe(line("nobody listens"))
      bus.publishUnsafe(status(1))
      expect(yield* drain(plain)).toEqual(["ProcessStatus"])

      yield* Effect.scoped(
        Effect.gen(function* () {
          const follower = yield* bus.subscribe({ logs: true })
          const second = yield* bus.subscribe({ logs: true })
          expect(bus.wantsLogLines()).toBe(true)
          bus.publishUnsafe(line("a"))
          bus.publishUnsafe(status(2))
          bus.publishUnsafe(line("b"))
          // Everything, in the order published, for a log subscriber; no log line for the others.
          expect(yield* drain(follower)).toEqual(["log:a", "ProcessStatus", "log:b"])
          expect(yield* drain(plain)).toEqual(["ProcessStatus"])
          bus.publishUnsafe(line("c"))
          expect(yield* drain(second)).toEqual(["log:a", "ProcessStatus", "log:b", "log:c"])
        })
      )
      // The last follower gone: log lines are dropped at the door again.
      expect(bus.wantsLogLines()).toBe(false)
      bus.publishUnsafe(line("after"))
      bus.publishUnsafe(status(3))
      expect(yield* drain(plain)).toEqual(["ProcessStatus"])

      // A later follower gets a fresh hub, and only what was published after it subscribed.
      yield* Effect.scoped(
        Effect.gen(function* () {
          const later = yield* bus.subscribe({ logs: true })
          bus.publishUnsafe(line("again"))
          expect(yield* drain(later)).toEqual(["log:again"])
        })
      )
      expect(bus.wantsLogLines()).toBe(false)
    }).pipe(Effect.provide(EventBus.Default))
  )

  it.scoped("lets two followers come and go independently", () =>
    Effect.gen(function* () {
      const bus = yield* EventBus
      const kept = yield* bus.subscribe({ logs: true })
      yield* Effect.scoped(
        Effect.gen(function* () {
          const brief = yield* bus.subscribe({ logs: true })
          bus.publishUnsafe(line("both"))
          expect(yield* drain(brief)).toEqual(["log:both"])
        })
      )
      expect(bus.wantsLogLines()).toBe(true)
      bus.publishUnsafe(line("one"))
      expect(yield* drain(kept)).toEqual(["log:both", "log:one"])
    }).pipe(Effect.provide(EventBus.Default))
  )
})
