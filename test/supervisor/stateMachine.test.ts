/**
 * The restart policy and state machine of docs/architecture.md §4 ("The state machine"), driven
 * on a TestClock with the test Spawner (test/support/testSpawner.ts): no real process, so a
 * backoff of 15 s or a crash loop to `errored` takes milliseconds of real time. The real-process
 * tests (lifecycle.test.ts, restartPolicy.test.ts) stay as they are.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Queue, type Scope, SubscriptionRef, TestClock } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { ProcessStatus } from "../../src/domain/ProcessStatus"
import { EventBus } from "../../src/events/EventBus"
import { LogOutput } from "../../src/logs/LogOutput"
import { LogStore } from "../../src/logs/LogStore"
import { MetricsSampler } from "../../src/monitor/MetricsSampler"
import { SamplingDemand } from "../../src/monitor/SamplingDemand"
import { Paths } from "../../src/shared/Paths"
import { EngineOptions } from "../../src/supervisor/EngineOptions"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { MAX_BACKOFF_MS } from "../../src/supervisor/restartPolicy"
import type { RowState } from "../../src/supervisor/Row"
import { StdioPipes } from "../../src/supervisor/StdioPipes"
import { awaitRow } from "../../src/supervisor/Supervisor"
import { definitions, fixture, withTempDir } from "../support/engine"
import { type FakeProcess, makeTestSpawner, type TestSpawner } from "../support/testSpawner"

/** Real time a wait may take before the test fails (the machine may be loaded). */
const REAL_DEADLINE_MS = 20_000

/** Fails the test when `effect` has not completed within REAL_DEADLINE_MS of real time (the TestClock does not move). */
const withinRealTime = <A, E, R>(effect: Effect.Effect<A, E, R>, what: string) =>
  Effect.raceFirst(
    effect,
    Effect.flatMap(
      Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, REAL_DEADLINE_MS))),
      () => Effect.die(new Error(`timed out waiting for ${what}`))
    )
  )

const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

type Env = ProcessManager | ConfigLoader | EventBus | Scope.Scope

/** An engine in a fresh home whose processes are the test spawner's, with no metrics sampling in the way. */
const withFakeEngine = <A, E>(body: (spawner: TestSpawner) => Effect.Effect<A, E, Env>) =>
  withTempDir((home) =>
    Effect.gen(function* () {
      const spawner = yield* makeTestSpawner
      const engine = ProcessManager.Default.pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            LogStore.DefaultWithoutDependencies.pipe(Layer.provide(LogOutput.files)),
            StdioPipes.Default,
            EventBus.Default,
            MetricsSampler.Default,
            SamplingDemand.layer(SAMPLING_INTERVAL_MS, SAMPLING_INTERVAL_MS),
            spawner.layer,
            EngineOptions.layer({ metricsIntervalMs: SAMPLING_INTERVAL_MS })
          )
        ),
        Layer.provideMerge(Paths.at(home))
      )
      return yield* Effect.scoped(body(spawner)).pipe(Effect.provide(Layer.merge(engine, ConfigLoader.Default)))
    })
  )

const script = fixture("crash-after.js")

/** Creates one app (a real script path: its paths are checked; the spawner never runs it). */
const createApp = (settings: Record<string, unknown>) =>
  Effect.gen(function* () {
    const pm = yield* ProcessManager
    const apps = yield* definitions([{ name: "app", script, ...settings }])
    return yield* pm.create(apps)
  })

const rowOf = Effect.flatMap(ProcessManager, (pm) => Effect.map(pm.rowsFor("app"), (rows) => rows[0]!))

const stateOf = Effect.flatMap(rowOf, (row) => SubscriptionRef.get(row.state))

/** Waits (in real time) until the row's state satisfies `predicate`. */
const until = (predicate: (state: RowState) => boolean, what: string) =>
  withinRealTime(
    Effect.flatMap(rowOf, (row) => awaitRow(row, predicate)),
    what
  )

const untilStatus = (status: ProcessStatus) => until((state) => state.status === status, status)

/** The metrics sampling loop sleeps this long: far beyond any wait these tests measure. */
const SAMPLING_INTERVAL_MS = 1_000_000_000
/** Waits longer than this are not the ones under test (the sampling loop; a deliberately long listen_timeout). */
const LONGEST_WAIT_MS = 1_000_000

/** The waits pending on the TestClock (from now), but the long ones that are not under test. */
const shortWaits = Effect.gen(function* () {
  const now = yield* TestClock.currentTimeMillis
  return [...(yield* TestClock.sleeps())].map((wake) => wake - now).filter((wait) => wait < LONGEST_WAIT_MS)
})

/** Waits until the supervisor sleeps on the TestClock (a restart or readiness wait has begun). */
const untilSleeping = withinRealTime(
  Effect.gen(function* () {
    while ((yield* shortWaits).length === 0) yield* realPause
  }),
  "a wait on the clock"
)

/** The wait the supervisor sleeps, from the TestClock's now. */
const pendingWait = Effect.gen(function* () {
  yield* untilSleeping
  return Math.min(...(yield* shortWaits))
})

const nextSpawn = (spawner: TestSpawner) => withinRealTime(spawner.next, "a spawn")

/** The process ends `uptimeMs` after it started (the clock moves on, then it exits). */
const exitAfter = (process: FakeProcess, uptimeMs: number, code = 1) =>
  Effect.zipRight(TestClock.adjust(uptimeMs), process.exit(code))

/** Crashes the current process after `uptimeMs`, and returns the wait before the next spawn. */
const crashAndMeasure = (process: FakeProcess, uptimeMs: number) =>
  Effect.zipRight(Effect.zipRight(exitAfter(process, uptimeMs), untilStatus("restarting")), pendingWait)

/** Lets the wait pass and takes the new process. */
const respawn = (spawner: TestSpawner, waitMs: number) =>
  Effect.gen(function* () {
    yield* TestClock.adjust(waitMs)
    const next = yield* nextSpawn(spawner)
    yield* untilStatus("online")
    return next
  })

describe("state machine on a TestClock (docs/architecture.md §4)", () => {
  it.effect("create → starting → online; a crash → restarting → after restart_delay → starting → online", () =>
    withFakeEngine((spawner) =>
      Effect.gen(function* () {
        const [created] = yield* createApp({ restart_delay: 250, exp_backoff_restart_delay: 0, min_uptime: 1_000 })
        expect(created!.status).toBe("online")
        const first = yield* nextSpawn(spawner)
        yield* exitAfter(first, 5_000)
        yield* untilStatus("restarting")
        expect(yield* pendingWait).toBe(250)
        // Just before restart_delay: not spawned again.
        yield* TestClock.adjust(249)
        yield* realPause
        expect(spawner.count()).toBe(1)
        yield* respawn(spawner, 1)
        expect(spawner.count()).toBe(2)
        const state = yield* stateOf
        expect(state).toMatchObject({ restarts: 1, errors: 1, unstableRestarts: 0 })
      })
    )
  )

  it.effect(
    "min_uptime: an exit exactly at min_uptime is stable (no backoff); 1 ms before it is unstable (backoff)",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          yield* createApp({ restart_delay: 0, exp_backoff_restart_delay: 100, min_uptime: 1_000, max_restarts: 5 })
          let process = yield* nextSpawn(spawner)
          // Exactly min_uptime: stable, restarted at once, the unstable count stays 0.
          yield* exitAfter(process, 1_000)
          process = yield* nextSpawn(spawner)
          yield* untilStatus("online")
          expect((yield* stateOf).unstableRestarts).toBe(0)
          // Just missed: unstable, the first backoff (exp_backoff_restart_delay).
          expect(yield* crashAndMeasure(process, 999)).toBe(100)
          expect((yield* stateOf).unstableRestarts).toBe(1)
          yield* respawn(spawner, 100)
        })
      )
  )

  it.effect(
    "backoff doubles with each unstable exit, caps at 15 s, and resets after a stable run; restart_delay adds to it",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          yield* createApp({
            restart_delay: 50,
            exp_backoff_restart_delay: 1_000,
            min_uptime: 60_000,
            max_restarts: 10
          })
          let process = yield* nextSpawn(spawner)
          const waits: Array<number> = []
          for (let i = 0; i < 6; i++) {
            const wait = yield* crashAndMeasure(process, 10)
            waits.push(wait)
            process = yield* respawn(spawner, wait)
          }
          expect(MAX_BACKOFF_MS).toBe(15_000)
          expect(waits).toEqual([1_050, 2_050, 4_050, 8_050, 15_050, 15_050])
          // A run longer than min_uptime resets the count: the next wait is restart_delay alone.
          expect(yield* crashAndMeasure(process, 60_000)).toBe(50)
          expect((yield* stateOf).unstableRestarts).toBe(0)
          process = yield* respawn(spawner, 50)
          // And the next unstable exit starts the backoff over.
          expect(yield* crashAndMeasure(process, 10)).toBe(1_050)
        })
      )
  )

  it.effect("max_restarts: unstable exits up to it restart; the next one (max_restarts + 1 in a row) is errored", () =>
    withFakeEngine((spawner) =>
      Effect.gen(function* () {
        yield* createApp({ restart_delay: 0, exp_backoff_restart_delay: 100, min_uptime: 1_000, max_restarts: 2 })
        let process = yield* nextSpawn(spawner)
        for (let i = 1; i <= 2; i++) {
          const wait = yield* crashAndMeasure(process, 10)
          expect((yield* stateOf).unstableRestarts).toBe(i)
          process = yield* respawn(spawner, wait)
        }
        yield* exitAfter(process, 10)
        yield* untilStatus("errored")
        const state = yield* stateOf
        expect(state).toMatchObject({ restarts: 2, unstableRestarts: 3, errors: 3 })
        expect(state.lastError).toContain("max_restarts 2")
        // Errored is final: no wait, no spawn.
        expect(yield* shortWaits).toHaveLength(0)
        expect(spawner.count()).toBe(3)
        // errored → starting: start brings it back with a fresh unstable count.
        const pm = yield* ProcessManager
        yield* pm.start("app")
        yield* nextSpawn(spawner)
        expect(yield* stateOf).toMatchObject({ status: "online", unstableRestarts: 0 })
      })
    )
  )

  it.effect(
    "autorestart false: exit 0 → stopped, a non-zero exit → errored, a signal → errored; none is restarted",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          yield* createApp({ autorestart: false })
          yield* exitAfter(yield* nextSpawn(spawner), 5_000, 0)
          yield* untilStatus("stopped")
          yield* pm.start("app")
          yield* exitAfter(yield* nextSpawn(spawner), 5_000, 3)
          yield* untilStatus("errored")
          expect((yield* stateOf).lastError).toContain("autorestart is off")
          yield* pm.start("app")
          const process = yield* nextSpawn(spawner)
          yield* TestClock.adjust(10)
          yield* process.exit(null, "SIGKILL")
          yield* untilStatus("errored")
          expect((yield* stateOf).lastExit).toEqual({ code: null, signal: "SIGKILL", at: expect.any(Number) })
          expect(spawner.count()).toBe(3)
          expect((yield* stateOf).restarts).toBe(0)
        })
      )
  )

  it.effect(
    "stop during the backoff wait: restarting → stopped, and nothing is spawned when the wait would have ended",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          yield* createApp({ restart_delay: 0, exp_backoff_restart_delay: 5_000, min_uptime: 1_000 })
          const wait = yield* crashAndMeasure(yield* nextSpawn(spawner), 10)
          expect(wait).toBe(5_000)
          expect((yield* stateOf).status).toBe("restarting")
          yield* pm.stop("app")
          expect(yield* stateOf).toMatchObject({ status: "stopped", desired: "stopped", pid: null })
          yield* TestClock.adjust(60_000)
          yield* realPause
          expect(spawner.count()).toBe(1)
          expect((yield* stateOf).status).toBe("stopped")
        })
      )
  )

  it.effect(
    "a crash while starting (wait_ready, not ready yet) is unstable: starting → restarting, then → errored past max_restarts",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          yield* createApp({
            wait_ready: true,
            listen_timeout: 5 * LONGEST_WAIT_MS,
            restart_delay: 0,
            exp_backoff_restart_delay: 100,
            min_uptime: 1_000,
            max_restarts: 1
          })
          let process = yield* nextSpawn(spawner)
          expect((yield* stateOf).status).toBe("starting")
          const wait = yield* crashAndMeasure(process, 10)
          expect(wait).toBe(100)
          yield* TestClock.adjust(wait)
          process = yield* nextSpawn(spawner)
          yield* untilStatus("starting")
          yield* exitAfter(process, 10)
          yield* untilStatus("errored")
          expect((yield* stateOf).unstableRestarts).toBe(2)
        })
      )
  )

  it.effect("starting → online when the process says it is ready (wait_ready), or once listen_timeout has passed", () =>
    withFakeEngine((spawner) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        yield* createApp({ wait_ready: true, listen_timeout: 3_000 })
        const process = yield* nextSpawn(spawner)
        expect((yield* stateOf).status).toBe("starting")
        yield* process.ready
        yield* untilStatus("online")
        yield* pm.restart("app")
        yield* nextSpawn(spawner)
        expect((yield* stateOf).status).toBe("starting")
        yield* untilSleeping
        yield* TestClock.adjust(3_000)
        yield* untilStatus("online")
      })
    )
  )

  it.effect(
    "an asked-for restart (memory) of an online row: online → stopping → restarting → starting → online at once, no backoff",
    () =>
      withFakeEngine((spawner) =>
        Effect.gen(function* () {
          yield* createApp({ restart_delay: 10_000, min_uptime: 1_000 })
          const first = yield* nextSpawn(spawner)
          const row = yield* rowOf
          const seen: Array<ProcessStatus> = []
          const bus = yield* EventBus
          const sub = yield* bus.subscribe()
          yield* TestClock.adjust(5_000)
          row.requests.offer("memory")
          yield* nextSpawn(spawner)
          yield* untilStatus("online")
          for (const event of yield* Queue.takeAll(sub)) if (event._tag === "ProcessStatus") seen.push(event.status)
          expect(seen).toEqual(["stopping", "restarting", "starting", "online"])
          expect(first.stopped()).toBe(true)
          expect((yield* stateOf).restarts).toBe(1)
        })
      )
  )

  it.effect("stop of an online row: online → stopping → stopped; stop of an errored row: errored → stopped", () =>
    withFakeEngine((spawner) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        yield* createApp({ autorestart: false })
        const process = yield* nextSpawn(spawner)
        yield* pm.stop("app")
        expect(process.stopped()).toBe(true)
        expect((yield* stateOf).status).toBe("stopped")
        yield* pm.start("app")
        yield* exitAfter(yield* nextSpawn(spawner), 10, 1)
        yield* untilStatus("errored")
        yield* pm.stop("app")
        expect((yield* stateOf).status).toBe("stopped")
      })
    )
  )

  it.effect("a spawn that fails: starting → errored with the reason (the row stays, start can try again)", () =>
    withFakeEngine((spawner) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        yield* createApp({ autostart: false })
        yield* spawner.failNextSpawn("no such program")
        const failed = yield* Effect.either(pm.start("app"))
        expect(failed._tag).toBe("Left")
        expect(yield* stateOf).toMatchObject({ status: "errored", lastError: "no such program" })
        yield* pm.start("app")
        yield* nextSpawn(spawner)
        expect((yield* stateOf).status).toBe("online")
      })
    )
  )
})
