// A new process for a row: the FIFO pair of its last process reused (or a fresh one), then the spawn.

import { Clock, Effect } from "effect"
import { ProcessStartFailed } from "../domain/errors"
import type { AttachedStream } from "../logs/LogStore"
import type { Row } from "./Row"
import type { SpawnedChild } from "./Spawner"
import { openReaders, type PipePair, type PipeReaders, removePair } from "./StdioPipes"
import type { SupervisorContext } from "./SupervisorContext"

export interface RunningProcess {
  readonly child: SpawnedChild
  readonly pipes: PipePair
  /** Its output, read into its log files. */
  readonly streams: ReadonlyArray<AttachedStream>
  readonly startedAt: number
  /** Asks an adopted process's watcher to look now. */
  readonly poke: () => void
}

/**
 * The FIFO pair of the row's last process. The next spawn reuses it when both its streams have
 * ended — nothing holds a writer any more, so no one else can write into the new process's log —
 * which keeps `mkfifo` off the crash → restart path; otherwise it is removed (its readers finish on
 * their own) and a fresh pair is taken.
 */
export interface PipeSlot {
  current: { readonly pipes: PipePair; readonly streams: ReadonlyArray<AttachedStream> } | undefined
}

/** How long a respawn waits for the last process's pipes to end, to reuse them (else: a new pair). */
const PIPE_END_WAIT_MS = 25

/** Completes when every stream has ended, or after `timeoutMs` (a plain timer: see LogStore's grace). */
const awaitEnded = (streams: ReadonlyArray<AttachedStream>, timeoutMs: number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    let waiting = streams.length
    const timer = setTimeout(() => resume(Effect.void), timeoutMs)
    for (const stream of streams) {
      stream.whenEnded(() => {
        if (--waiting === 0) {
          clearTimeout(timer)
          resume(Effect.void)
        }
      })
    }
    return Effect.sync(() => clearTimeout(timer))
  })

/** Reads a pair into the row's log files: `readers` opened already, or opened now. */
export type AttachPipes = (pipes: PipePair, readers?: PipeReaders) => Effect.Effect<ReadonlyArray<AttachedStream>>

/**
 * The pair's read ends, opened before the spawn (see openReaders); undefined when they cannot be
 * opened, and `attach` reports it.
 */
const openReadersFirst = (pipes: PipePair): PipeReaders | undefined => {
  try {
    return openReaders(pipes)
  } catch {
    return undefined
  }
}

/** A new process for the row: a FIFO pair, its read ends, the spawn, and its output attached. */
export const spawnProcess = (
  row: Row,
  context: SupervisorContext,
  port: number | null,
  slot: PipeSlot,
  attach: AttachPipes
) =>
  Effect.gen(function* () {
    const app = row.app.definition
    const last = slot.current
    slot.current = undefined
    // The last process has exited: its pipes' end usually follows within a moment.
    if (last !== undefined && !last.streams.every((stream) => stream.ended()))
      yield* awaitEnded(last.streams, PIPE_END_WAIT_MS)
    const reusable = last !== undefined && last.streams.length > 0 && last.streams.every((stream) => stream.ended())
    if (last !== undefined && !reusable) removePair(last.pipes)
    const pipes = reusable
      ? last.pipes
      : yield* context.pipes.take.pipe(
          Effect.mapError(
            (error) =>
              new ProcessStartFailed({
                message: `${app.name} could not start: cannot create its stdout/stderr pipes (${error.message})`,
                details: {
                  process_id: app.name,
                  reason: `cannot create its stdout/stderr pipes: ${error.message}`,
                  suggestion: "check that PMFX_HOME is writable and not full"
                }
              })
          )
        )
    const request = { app, instance: row.instance, port, baseEnv: row.app.baseEnv }
    const readers = openReadersFirst(pipes)
    const child = yield* (
      app.exec_mode === "cluster" ? context.cluster.spawnWorker(request, pipes) : context.spawner.spawn(request, pipes)
    ).pipe(
      Effect.tapError(() =>
        Effect.sync(() => {
          readers?.out.destroy()
          readers?.err.destroy()
          removePair(pipes)
        })
      )
    )
    // From the spawn itself: in a burst, this fiber may resume only after other rows' spawns.
    const startedAt = child.spawnedAt ?? (yield* Clock.currentTimeMillis)
    const streams = yield* attach(pipes, readers)
    return { child, pipes, streams, startedAt, poke: () => {} } satisfies RunningProcess
  })
