/**
 * A process started by an earlier daemon (docs/decisions.md, "Apps outlive the daemon"), watched
 * by the daemon that adopts it: no exit event reaches a non-parent, so its exit is seen by polling.
 */
import { Clock, Duration, Effect, Option, Queue, type Scope } from "effect"
import { randomHex } from "../shared/randomHex"
import * as fs from "node:fs"
import { readProcStat } from "../monitor/procfs"
import { ExitSignal } from "./ExitSignal"
import { makeFamily, RUN_ID_VARIABLE } from "./ProcessFamily"
import type { SpawnedChild } from "./Spawner"

/** The `PMFX_RUN_ID` a process was started with (its initial environment), if it has one. */
const runIdOf = (pid: number): string | undefined => {
  try {
    const prefix = `${RUN_ID_VARIABLE}=`
    const entry = fs
      .readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((e) => e.startsWith(prefix))
    const value = entry?.slice(prefix.length)
    return value !== undefined && /^[0-9a-f]{24}$/.test(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** How often an adopted process is checked for its exit (no parent, so no exit event). */
const ADOPTED_POLL_MS = 100

/**
 * A process started by an earlier daemon, watched without being its parent: it has exited when
 * its pid is gone, a zombie, or taken by a process with another start time. Its exit status is
 * not ours to read (`unknown`). `poke` asks for a check now (its pipes ended, say).
 */
export const watchAdopted = (
  pid: number,
  startTime: number
): Effect.Effect<{ readonly child: SpawnedChild; readonly poke: () => void }, never, Scope.Scope> =>
  Effect.gen(function* () {
    const exit = new ExitSignal()
    const gone = Effect.map(
      readProcStat(pid),
      (stat) => Option.isNone(stat) || stat.value.state === "Z" || stat.value.startTime !== startTime
    )
    const wake = yield* Queue.sliding<void>(1)
    yield* Effect.gen(function* () {
      while (!(yield* gone)) yield* Effect.race(Effect.sleep(Duration.millis(ADOPTED_POLL_MS)), Queue.take(wake))
      exit.complete({ code: null, signal: null, unknown: true })
      // Interruptible: it is forked while a resource is acquired, which is not.
    }).pipe(Effect.interruptible, Effect.forkScoped)
    // Its family as the spawning daemon knew it: the run marker it was started with (a process of an
    // older pmfx has none: a fresh marker matches nothing), born no earlier than the leader.
    const runId = runIdOf(pid) ?? randomHex(12)
    // It exists now: any process table read from here on shows it.
    const family = makeFamily(pid, runId, startTime, startTime, yield* Clock.currentTimeMillis)
    return { child: { pid, exit, family }, poke: () => void Queue.unsafeOffer(wake, undefined) }
  })
