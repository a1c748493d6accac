/**
 * A Spawner for tests that drive the supervisor without real processes (docs/architecture.md §4,
 * "The state machine"): each spawn is recorded and returns a fake process with a pid no real
 * process can have; the test ends it with the exit it wants, when it wants — on a TestClock, so
 * backoffs of seconds pass in no real time. Its stdout/stderr FIFOs are opened and closed like a
 * real child's, so the log path behaves as it does for one.
 */
import { Clock, Deferred, Effect, Layer, Queue } from "effect"
import * as fs from "node:fs"
import { ProcessStartFailed } from "../../src/domain/errors"
import { makeFamily } from "../../src/supervisor/ProcessFamily"
import { ExitSignal } from "../../src/supervisor/ExitSignal"
import { type ChildExit, type SpawnedChild, Spawner, type SpawnRequest } from "../../src/supervisor/Spawner"
import { openWriters } from "../../src/supervisor/StdioPipes"

/** Above any Linux pid_max (at most 2^22): never a real process. */
const FIRST_FAKE_PID = 5_000_000

export interface FakeProcess {
  readonly pid: number
  readonly request: SpawnRequest
  /** Ends the process on its own: a crash (non-zero code or a signal) or a clean exit. */
  readonly exit: (code: number | null, signal?: string | null) => Effect.Effect<void>
  /** Completes `wait_ready` (the process says it is ready). */
  readonly ready: Effect.Effect<void>
  /** True once the supervisor stopped it (stop, restart, delete). */
  readonly stopped: () => boolean
}

export const makeTestSpawner = Effect.gen(function* () {
  const spawned = yield* Queue.unbounded<FakeProcess>()
  const ends = new Map<number, (exit: ChildExit) => Effect.Effect<void>>()
  let nextPid = FIRST_FAKE_PID
  let count = 0
  /** The reason the next spawn fails with, when set. */
  let failNext: string | undefined

  const service: Spawner["Type"] = {
    spawn: (request: SpawnRequest, pipes) =>
      Effect.gen(function* () {
        if (failNext !== undefined) {
          const reason = failNext
          failNext = undefined
          return yield* new ProcessStartFailed({
            message: `${request.app.name} could not start: ${reason}`,
            details: { process_id: request.app.name, reason, suggestion: "this is a test" }
          })
        }
        const pid = nextPid++
        count++
        const writers = openWriters(pipes)
        const exit = new ExitSignal()
        const ready = request.app.wait_ready ? yield* Deferred.make<void>() : undefined
        let stopped = false
        const end = (result: ChildExit) =>
          Effect.sync(() => {
            if (!exit.complete(result)) return
            // The child's end of its pipes closes with it: the log readers see the end.
            fs.closeSync(writers.out)
            fs.closeSync(writers.err)
          })
        ends.set(pid, (result) =>
          Effect.zipRight(
            Effect.sync(() => void (stopped = true)),
            end(result)
          )
        )
        const now = yield* Clock.currentTimeMillis
        const child: SpawnedChild = {
          pid,
          exit,
          family: makeFamily(pid, "test", 0, undefined, now),
          ...(ready === undefined ? {} : { ready })
        }
        yield* Queue.offer(spawned, {
          pid,
          request,
          exit: (code, signal = null) => end({ code, signal }),
          ready: ready === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(ready, undefined)),
          stopped: () => stopped
        })
        return child
      }),
    stop: (child) => ends.get(child.pid)?.({ code: null, signal: "SIGTERM" }) ?? Effect.void,
    afterExit: () => Effect.void,
    adopt: () => Effect.die("the test spawner adopts no process")
  }

  return {
    layer: Layer.succeed(Spawner, service),
    /** The next process spawned (waits for it). */
    next: Queue.take(spawned),
    /** Processes spawned that the test has not taken yet. */
    pending: Queue.size(spawned),
    /** How many processes were spawned so far. */
    count: () => count,
    /** Makes the next spawn fail with PROCESS_START_FAILED. */
    failNextSpawn: (reason: string) => Effect.sync(() => void (failNext = reason))
  }
})

export type TestSpawner = Effect.Effect.Success<typeof makeTestSpawner>
