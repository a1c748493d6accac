/**
 * Orphans (DESIGN §3): children run in their own process groups, so they outlive a daemon killed
 * with SIGKILL. Before restoring, every recorded pid that is still alive with the same start time
 * is ours: its group is stopped (SIGTERM, then SIGKILL after kill_timeout) so no app ever runs
 * twice. A pid reused by an unrelated process has another start time and is left alone.
 */
import { Effect, Option } from "effect"
import { readStartTime } from "../monitor/procfs"
import type { EngineSnapshot } from "../supervisor/EngineSnapshot"
import { stopGroup } from "../supervisor/Spawner"

export const killOrphans = (snapshot: EngineSnapshot): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function* () {
    const killed: Array<number> = []
    const work = snapshot.apps.flatMap((app) =>
      app.rows.flatMap((row) => (row.pid === null || row.pid_start_time === null ? [] : [{ pid: row.pid, startTime: row.pid_start_time, killTimeout: app.definition.kill_timeout }]))
    )
    yield* Effect.forEach(
      work,
      ({ pid, startTime, killTimeout }) =>
        Effect.gen(function* () {
          const current = yield* readStartTime(pid)
          if (Option.isNone(current) || current.value !== startTime) return
          yield* Effect.logInfo(`stopping orphaned process group ${pid} left by a previous daemon`)
          yield* stopGroup(pid, killTimeout)
          killed.push(pid)
        }),
      { concurrency: "unbounded", discard: true }
    )
    return killed
  })
