import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Ref, Scope } from "effect"
import { makeSamplingDemand, needsSteadySampling } from "../../src/monitor/SamplingDemand"

const HOUR = 3_600_000

/** A sampling loop like the process manager's, counting its samples; forked in the test's scope. */
const countingLoop = (demand: Effect.Effect.Success<ReturnType<typeof makeSamplingDemand>>, steady = false) =>
  Effect.gen(function* () {
    const samples = yield* Ref.make(0)
    yield* Effect.forkScoped(
      Effect.forever(
        Ref.update(samples, (n) => n + 1).pipe(
          Effect.zipRight(demand.sampled),
          Effect.zipRight(demand.waitForNext(steady))
        )
      )
    )
    yield* Effect.yieldNow()
    return samples
  })

const eventually = <A>(read: Effect.Effect<A>, accept: (a: A) => boolean, what: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const value = yield* read
      if (accept(value)) return value
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.fail(new Error(`timed out waiting for ${what}`))
  })

describe("SamplingDemand", () => {
  it.effect("waits the background interval unless someone watches, an app needs it, or a standing demand is on", () =>
    Effect.gen(function* () {
      const demand = yield* makeSamplingDemand(1_000, 10_000)
      expect(yield* demand.currentIntervalMs(false)).toBe(10_000)
      expect(yield* demand.currentIntervalMs(true)).toBe(1_000)
      const scope = yield* Scope.make()
      yield* Scope.extend(demand.watch, scope)
      yield* Scope.extend(demand.watch, scope)
      expect(yield* demand.currentIntervalMs(false)).toBe(1_000)
      yield* Scope.close(scope, Exit.void)
      expect(yield* demand.currentIntervalMs(false)).toBe(10_000)
      yield* demand.setStanding("alerts", true)
      expect(yield* demand.currentIntervalMs(false)).toBe(1_000)
      yield* demand.setStanding("alerts", false)
      expect(yield* demand.currentIntervalMs(false)).toBe(10_000)
      // The background rate is never faster than the demanded one.
      expect(yield* (yield* makeSamplingDemand(5_000, 1_000)).currentIntervalMs(false)).toBe(5_000)
    })
  )

  it.scopedLive("a reader of stale figures gets a sample taken for it; fresh figures are served as they are", () =>
    Effect.gen(function* () {
      const demand = yield* makeSamplingDemand(HOUR, HOUR)
      const samples = yield* countingLoop(demand)
      yield* eventually(Ref.get(samples), (n) => n === 1, "the first sample")
      // The first sample is less than an hour old: nothing new.
      yield* demand.fresh
      expect(yield* Ref.get(samples)).toBe(1)

      const stale = yield* makeSamplingDemand(1, HOUR)
      const staleSamples = yield* countingLoop(stale)
      yield* eventually(Ref.get(staleSamples), (n) => n === 1, "the first sample")
      yield* Effect.sleep("20 millis")
      yield* stale.fresh
      // The loop sleeps for an hour: only the reader's poke explains a second sample.
      expect(yield* Ref.get(staleSamples)).toBeGreaterThanOrEqual(2)
    })
  )

  it.scopedLive("a new watcher or standing demand cuts the background wait short", () =>
    Effect.gen(function* () {
      const demand = yield* makeSamplingDemand(HOUR, 2 * HOUR)
      const samples = yield* countingLoop(demand)
      yield* eventually(Ref.get(samples), (n) => n === 1, "the first sample")
      yield* demand.watch
      yield* eventually(Ref.get(samples), (n) => n === 2, "a sample for the watcher")
      yield* demand.setStanding("alerts", true)
      yield* eventually(Ref.get(samples), (n) => n === 3, "a sample for the standing demand")
    })
  )

  it("needs the full rate for a memory limit or a metric alert only", () => {
    const app = { max_memory_restart: null, alerts: null } as Parameters<typeof needsSteadySampling>[0]
    expect(needsSteadySampling(app)).toBe(false)
    expect(needsSteadySampling({ ...app, max_memory_restart: 100 * 1024 * 1024 })).toBe(true)
    expect(needsSteadySampling({ ...app, alerts: { cpu_percent: 90 } })).toBe(true)
    expect(needsSteadySampling({ ...app, alerts: { memory: 1024 } })).toBe(true)
    expect(needsSteadySampling({ ...app, alerts: { restart_loop: { restarts: 5, window: 60_000 } } } as never)).toBe(
      false
    )
  })
})
