/**
 * How often the daemon samples its process trees (docs/architecture.md §4 Metrics): as often as someone
 * needs it, and rarely when nobody does.
 *
 * - A **standing demand** samples every `metricsIntervalMs` (1 s) while it lasts: a connected `/ws`
 *   client (monit, the dashboard: every session receives metrics), an app with `max_memory_restart` or
 *   with a `memory` / `cpu_percent` alert rule (passed in by the sampling loop, see {@link needsSteadySampling}),
 *   global `memory` / `cpu_percent` alert thresholds (src/events/Alerts.ts).
 *   Demands are scoped: the fast rate ends when the last one's scope closes.
 * - A **reader** (`list`, `show`, a `/metrics` scrape) asks for figures no older than
 *   `metricsIntervalMs`: when the last sample is older, the loop samples at once and the reader waits
 *   for it (a tree read is well under a millisecond per app); otherwise the cached figures serve.
 * - Otherwise the loop samples every `backgroundMetricsMs` (10 s), reading only the supervised trees,
 *   and still publishes `MetricsSample` on the bus each time, so consumers that keep a history (the
 *   dashboard's ring buffer) get a point every 10 s even when nobody watches.
 *
 * One loop (the process manager's) calls {@link SamplingDemandShape.waitForNext} between samples and
 * {@link SamplingDemandShape.sampled} after each.
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, type Scope } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"

/** How long a reader waits for the sample it asked for before it takes the figures it has. */
const FRESH_WAIT = Duration.seconds(2)

export interface SamplingDemandShape {
  /** Samples every `metricsIntervalMs` while the calling scope is open. */
  readonly watch: Effect.Effect<void, never, Scope.Scope>
  /** A standing demand by name, on or off (the daemon's global memory / CPU alert thresholds). */
  readonly setStanding: (name: string, on: boolean) => Effect.Effect<void>
  /** Returns once the figures are no older than `metricsIntervalMs` (at most ~2 s later). */
  readonly fresh: Effect.Effect<void>
  /** The loop: waits until the next sample is due. `steady`: an app needs the fast rate anyway. */
  readonly waitForNext: (steady: boolean) => Effect.Effect<void>
  /** The loop: a sample was just taken (readers waiting for one go on). */
  readonly sampled: Effect.Effect<void>
  /** The interval the loop waits now, for a given `steady` (for the tests and `status`). */
  readonly currentIntervalMs: (steady: boolean) => Effect.Effect<number>
}

/** Whether an app's own settings need the fast rate: its memory limit and its metric alerts act on samples. */
export const needsSteadySampling = (app: AppDefinition): boolean =>
  app.max_memory_restart !== null ||
  (app.alerts !== null && (app.alerts.memory !== undefined || app.alerts.cpu_percent !== undefined))

export const makeSamplingDemand = (fastMs: number, backgroundMs: number): Effect.Effect<SamplingDemandShape> =>
  Effect.gen(function* () {
    let watchers = 0
    const standing = new Set<string>()
    let lastSampleAt = Number.NEGATIVE_INFINITY
    /** Completed to cut the loop's wait short (a new watcher, a reader wanting fresh figures). */
    let wake = yield* Deferred.make<void>()
    /** Completed after the next sample. */
    let next = yield* Deferred.make<void>()

    const poke = Effect.suspend(() => Deferred.succeed(wake, undefined))
    const intervalMs = (steady: boolean) =>
      steady || watchers > 0 || standing.size > 0 ? fastMs : Math.max(fastMs, backgroundMs)

    const watch = Effect.acquireRelease(
      Effect.zipRight(
        Effect.sync(() => {
          watchers++
        }),
        poke
      ),
      () =>
        Effect.sync(() => {
          watchers--
        })
    ).pipe(Effect.asVoid)

    const fresh = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now - lastSampleAt <= fastMs) return
      const done = next
      yield* poke
      yield* Deferred.await(done).pipe(Effect.timeout(FRESH_WAIT), Effect.ignore)
    })

    const waitForNext = (steady: boolean) =>
      Effect.gen(function* () {
        const woken = wake
        yield* Effect.raceFirst(Effect.sleep(Duration.millis(intervalMs(steady))), Deferred.await(woken))
        // A poke from now on must cut the NEXT wait short.
        if (wake === woken) wake = yield* Deferred.make<void>()
      })

    const sampled = Effect.gen(function* () {
      lastSampleAt = yield* Clock.currentTimeMillis
      const done = next
      next = yield* Deferred.make<void>()
      yield* Deferred.succeed(done, undefined)
    })

    const setStanding = (name: string, on: boolean) =>
      Effect.suspend(() => {
        const had = standing.size
        if (on) standing.add(name)
        else standing.delete(name)
        return standing.size > had ? poke : Effect.void
      })

    return {
      watch,
      setStanding,
      fresh,
      waitForNext,
      sampled,
      currentIntervalMs: (steady: boolean) => Effect.sync(() => intervalMs(steady))
    }
  })

/** The daemon's sampling policy; the engine builds it from its settings (src/supervisor/Engine.ts). */
export class SamplingDemand extends Context.Tag("pmfx/SamplingDemand")<SamplingDemand, SamplingDemandShape>() {
  static readonly layer = (fastMs: number, backgroundMs: number) =>
    Layer.effect(SamplingDemand, makeSamplingDemand(fastMs, backgroundMs))
}
