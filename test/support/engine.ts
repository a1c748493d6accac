/**
 * Runs the engine in-process for a test: a fresh temporary PMFX_HOME, real child processes, and
 * everything stopped and removed when the test ends.
 */
import { Duration, Effect, Layer, Schedule, type Scope, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { AppDefinition } from "../../src/domain/AppDefinition"
import { EventBus } from "../../src/events/EventBus"
import type { PmfxEvent } from "../../src/events/PmfxEvent"
import { Engine } from "../../src/supervisor/Engine"
import type { EngineSettings } from "../../src/supervisor/EngineOptions"
import { isAlive } from "./processes"

export const fixture = (name: string) => path.resolve(__dirname, "../fixtures", name)

/** A fresh folder, removed after the effect. */
export const withTempDir = <A, E, R>(body: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-engine-"))),
    body,
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/**
 * Runs `body` with an engine whose home is a fresh folder; the engine (and every process it
 * started) is shut down before the folder is removed.
 */
export const withEngine = <A, E>(
  body: (
    home: string
  ) => Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof Engine.at>> | ConfigLoader | Scope.Scope>,
  settings: Partial<EngineSettings> = {}
) =>
  withTempDir((home) =>
    Effect.scoped(body(home)).pipe(
      Effect.provide(
        Layer.merge(
          Engine.at(home, { metricsIntervalMs: 250, backgroundMetricsMs: 250, ...settings }),
          ConfigLoader.Default
        )
      )
    )
  )

/** Resolved definitions from settings written as in an ecosystem file (relative paths from `baseDir`). */
export const definitions = (apps: ReadonlyArray<object>, baseDir = process.cwd()) =>
  Effect.flatMap(ConfigLoader, (loader) => loader.fromDocument({ apps }, baseDir, { environment: process.env })).pipe(
    Effect.map((loaded): ReadonlyArray<AppDefinition> => loaded.apps),
    Effect.orDie
  )

/** Polls `check` every 50 ms until it returns true; dies after `timeoutMs` (generous by default). */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string, timeoutMs = 30_000) =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (ok) => ok }),
    Effect.timeoutFail({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => new Error(`timed out waiting for ${what}`)
    }),
    Effect.orDie,
    Effect.asVoid
  )

/** Collects bus events into an array for the life of the scope. */
export const recordEvents = (options?: { readonly logs?: boolean }) =>
  Effect.gen(function* () {
    const bus = yield* EventBus
    const events: Array<PmfxEvent & { readonly at: number }> = []
    yield* bus.stream(options).pipe(
      Stream.runForEach((event) => Effect.sync(() => events.push({ ...event, at: Date.now() }))),
      Effect.forkScoped
    )
    // Let the subscription start before the test acts.
    yield* Effect.yieldNow()
    return events
  })

export const PATH_ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin" }
export { isAlive }
