/**
 * Keeps state.json in step with the engine: saved after every change the user makes (the API
 * saves before it answers, and a failed save fails the request), whenever a row's status or pid
 * changes, and whenever the daemon-wide webhooks or alert thresholds change (debounced) — so a
 * daemon killed at any moment leaves what the next one needs.
 *
 * A save that fails (a full disk, a read-only file system) leaves the previous file intact
 * (`atomicWrite.ts`), is remembered for `/health`, and is tried again every few seconds until it
 * succeeds: when space comes back, the state is saved without anyone asking.
 */
import { Duration, Effect, Queue, Ref, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileError, InsufficientResources } from "../domain/errors"
import { EventBus } from "../events/EventBus"
import { Notifications } from "../events/Notifications"
import { ProcessManager } from "../supervisor/ProcessManager"
import type { AtomicWriteError } from "./atomicWrite"
import { DaemonInfo } from "./DaemonInfo"
import { Paths } from "../shared/Paths"
import { writeStateFile } from "./StateFile"

const DEBOUNCE = Duration.millis(25)
/** How long a spawn's save waits for the other spawns of a burst, to cover them all (docs/decisions.md). */
const SPAWN_SAVE_GATHER = Duration.millis(5)
/** How often a failed save is tried again. */
export const SAVE_RETRY = Duration.seconds(2)

/** Error codes that mean "no room left", for which the answer is INSUFFICIENT_RESOURCES. */
const DISK_FULL = new Set(["ENOSPC", "EDQUOT"])

/** The last failed save, while saving fails. */
export interface SaveFailure {
  readonly code: string
  readonly reason: string
  /** When saving started to fail (ms since the epoch). */
  readonly since: number
  /** The error the API answers with while saving fails. */
  readonly error: InsufficientResources | FileError
}

export interface SaveStatus {
  /** When state.json was last written whole (ms since the epoch); null: not yet by this daemon. */
  readonly lastSavedAt: number | null
  readonly failure: SaveFailure | null
}

/** Free bytes for an unprivileged writer on the disk holding `dir`; 0 when it cannot be read. */
const freeBytes = (dir: string): number => {
  try {
    const stats = fs.statfsSync(dir)
    return Number(stats.bavail) * Number(stats.bsize)
  } catch {
    return 0
  }
}

/** The structured error a failed save answers with: the disk is full, or the file cannot be written. */
export const saveErrorOf = (error: AtomicWriteError): InsufficientResources | FileError => {
  const dir = path.dirname(error.file)
  const retry = `pmfx saves it again by itself every ${Duration.toSeconds(SAVE_RETRY)}s (GET /health shows whether it did)`
  const effect = "the change took effect, but a daemon restarted now would not know it"
  if (DISK_FULL.has(error.code)) {
    return new InsufficientResources({
      message: `state.json could not be saved: the disk holding ${dir} is full (${error.code}); ${effect}`,
      details: {
        resource: "disk",
        available: freeBytes(dir),
        required: error.bytes,
        suggestion: `free space on that disk (the apps' logs are in ${path.join(dir, "logs")}: delete rotated ones, or lower max_log_size / max_log_files); ${retry}`
      }
    })
  }
  return new FileError({
    message: `state.json could not be saved: ${error.reason} (${error.code}); ${effect}`,
    details: {
      path: error.file,
      reason: error.code,
      suggestion: `make ${dir} writable again (check the file system and its permissions); ${retry}`
    }
  })
}

export class StateStore extends Effect.Service<StateStore>()("pmfx/StateStore", {
  scoped: Effect.gen(function* () {
    const paths = yield* Paths
    const manager = yield* ProcessManager
    const bus = yield* EventBus
    const daemon = yield* DaemonInfo
    // Notifications.none (a host without notifications) saves no notification settings.
    const notifications = yield* Notifications
    const lock = yield* Effect.makeSemaphore(1)
    const status = yield* Ref.make<SaveStatus>({ lastSavedAt: null, failure: null })
    /** Offered when a save fails: wakes the retry loop, which sleeps otherwise (no timer while saves work). */
    const failed = yield* Queue.sliding<void>(1)

    const write = Effect.gen(function* () {
      const engine = yield* manager.snapshot()
      const web = yield* Ref.get(daemon.webSettings)
      const hooks = yield* notifications.webhooks()
      const rules = yield* notifications.globalRules()
      yield* writeStateFile(paths.state, {
        version: 1,
        saved_at: new Date().toISOString(),
        killed: yield* Ref.get(daemon.killed),
        engine,
        ...(web === null ? {} : { web }),
        ...(hooks.length === 0 ? {} : { webhooks: hooks }),
        ...(Object.keys(rules).length === 0 ? {} : { alerts: rules })
      })
    })

    /** Records the outcome; logs only when saving starts failing, fails differently, or recovers. */
    const record = (outcome: AtomicWriteError | null) =>
      Effect.gen(function* () {
        const now = Date.now()
        const previous = (yield* Ref.get(status)).failure
        if (outcome === null) {
          yield* Ref.set(status, { lastSavedAt: now, failure: null })
          if (previous !== null)
            yield* Effect.logInfo(
              `state.json is saved again (it could not be saved since ${new Date(previous.since).toISOString()}: ${previous.code})`
            )
          return
        }
        const error = saveErrorOf(outcome)
        const failure: SaveFailure = {
          code: outcome.code,
          reason: outcome.reason,
          since: previous?.since ?? now,
          error
        }
        yield* Ref.update(status, (current) => ({ ...current, failure }))
        yield* Queue.offer(failed, undefined)
        if (previous === null || previous.code !== outcome.code)
          yield* Effect.logError(
            `could not write state.json: ${outcome.reason} (${outcome.code}); trying again every ${Duration.toSeconds(SAVE_RETRY)}s`
          )
        return yield* Effect.fail(error)
      })

    /** Saves now; fails with the error the API answers with when the file could not be written. */
    const save: Effect.Effect<void, InsufficientResources | FileError> = lock.withPermits(1)(
      write.pipe(
        Effect.as(null),
        Effect.catchTag("AtomicWriteError", (error) => Effect.succeed(error)),
        Effect.flatMap(record)
      )
    )
    /** A save whose failure is already recorded (and logged) by `save`. */
    const saveQuietly = Effect.ignore(save)

    // After each spawn, saved before the spawn is reported (docs/decisions.md, "Apps outlive the
    // daemon"): a daemon killed from then on leaves the new pid for the next one. Spawns close
    // together share one save: a save that began after a spawn's request covers it.
    const spawnLock = yield* Effect.makeSemaphore(1)
    let requested = 0
    let covered = 0
    const saveAfterSpawn = Effect.suspend(() => {
      const mine = ++requested
      // Saves are synchronous: without a pause, the spawns of a burst (a file's 50 apps) would
      // each get a save of their own, one after another. Let the spawns ready to run go first.
      return Effect.zipRight(
        Effect.sleep(SPAWN_SAVE_GATHER),
        spawnLock.withPermits(1)(
          Effect.suspend(() => {
            if (covered >= mine) return Effect.void
            const upTo = requested
            return save.pipe(
              Effect.ignore,
              Effect.tap(() => Effect.sync(() => void (covered = upTo)))
            )
          })
        )
      )
    })
    yield* manager.onSpawned(saveAfterSpawn)
    yield* Effect.addFinalizer(() => manager.onSpawned(Effect.void))

    // Saved DEBOUNCE after the last of a group of changes. Not `Stream.debounce`: it forks and
    // interrupts a timer fiber per element, and a burst of 50 spawns publishes ~150–200 status
    // changes; here a change only stamps the time and wakes the saver (docs/decisions.md,
    // "Starting 50 apps, second pass").
    let changedAt = 0
    const changed = yield* Queue.sliding<void>(1)
    yield* bus.stream().pipe(
      Stream.filter((event) => event._tag === "ProcessStatus" || event._tag === "TableChanged"),
      Stream.as(undefined),
      Stream.merge(notifications.changes),
      Stream.runForEach(() =>
        Effect.suspend(() => {
          changedAt = Date.now()
          return Queue.offer(changed, undefined)
        })
      ),
      Effect.forkScoped
    )
    const quietFor = Duration.toMillis(DEBOUNCE)
    yield* Effect.gen(function* () {
      yield* Queue.take(changed)
      for (;;) {
        const wait = changedAt + quietFor - Date.now()
        if (wait <= 0) break
        yield* Effect.sleep(Duration.millis(wait))
      }
      yield* Queue.takeAll(changed)
      yield* saveQuietly
    }).pipe(Effect.forever, Effect.forkScoped)
    // While saving fails, nothing else may ask for a save: try again until it works. Parked on the
    // queue otherwise: a loop that woke every SAVE_RETRY to find nothing to do cost an idle daemon
    // ~0.1 % of a core (docs/benchmarks.md, "Idle wakeups").
    yield* Effect.gen(function* () {
      yield* Queue.take(failed)
      while ((yield* Ref.get(status)).failure !== null) {
        yield* Effect.sleep(SAVE_RETRY)
        yield* saveQuietly
      }
    }).pipe(Effect.forever, Effect.forkScoped)
    // The last word when the daemon stops: what was running is still wanted.
    yield* Effect.addFinalizer(() => saveQuietly)
    return { save, status: Ref.get(status) }
  })
}) {}
