/**
 * What a daemon does, before restoring, with the processes an earlier daemon left running
 * (docs/decisions.md, "Apps outlive the daemon"). Apps run in their own process groups and write
 * to FIFOs they never see close, so they outlive a daemon killed with SIGKILL or handed over by
 * `pmfx daemon restart`. For every saved row:
 *
 * - its pid alive with the saved start time, the row wanted running, not held by `pmfx kill`
 *   (heldByKill.ts) and its FIFOs still there: the process is **adopted** (same pid, its logs continue);
 * - alive with the saved start time otherwise (the row is stopped, or held): its group is stopped;
 * - gone, or the pid now belongs to a process with another start time: nothing is touched;
 * - a worker of a cluster-mode app: never adopted (its primary's control channel died with the
 *   earlier daemon), its primary's process group is stopped and the app starts again.
 *
 * Then the FIFOs no adopted process uses are swept: a process that holds one open was spawned by
 * the earlier daemon but never recorded (it died between the spawn and the save), so its group is
 * stopped — no app runs twice and nothing runs untracked — and the FIFOs are removed.
 */
import { killSignalOf } from "../domain/killSignal"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { readProcStat, readStartTime } from "../monitor/procfs"
import type { EngineSnapshot } from "../supervisor/EngineSnapshot"
import { stopGroup } from "../supervisor/Spawner"
import { isPipeName, pairAt, pairExists } from "../supervisor/StdioPipes"
import type { Adoption } from "../supervisor/Supervisor"

/** How long a swept process gets between SIGTERM and SIGKILL (its app is not known). */
const SWEEP_KILL_TIMEOUT_MS = 3_000

export interface Reclaimed {
  readonly adopt: ReadonlyMap<number, Adoption>
  /** Process groups stopped: saved processes of rows not to run, and unrecorded ones. */
  readonly stopped: ReadonlyArray<number>
}

/** Pids (other than this one) holding any of `files` open, from /proc/<pid>/fd. */
const holdersOf = (files: ReadonlySet<string>): ReadonlyArray<number> => {
  const holders: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    let fds: Array<string>
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`)
    } catch {
      continue // Gone, or another user's.
    }
    for (const fd of fds) {
      let target: string
      try {
        target = fs.readlinkSync(`/proc/${entry}/fd/${fd}`)
      } catch {
        continue
      }
      if (files.has(target)) {
        holders.push(Number(entry))
        break
      }
    }
  }
  return holders
}

const ownGroup = (): number => {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
  } catch {
    return -1
  }
}

export const reclaimProcesses = (
  engine: EngineSnapshot,
  options: { readonly held: ReadonlySet<number>; readonly pipesDir: string }
): Effect.Effect<Reclaimed> =>
  Effect.gen(function* () {
    const adopt = new Map<number, Adoption>()
    const stopped: Array<number> = []
    // `signal`: an app's own kill_signal; a cluster's primary group and strays get SIGTERM.
    const toStop: Array<{ readonly pgid: number; readonly killTimeout: number; readonly signal?: NodeJS.Signals }> = []
    const now = Date.now()
    for (const app of engine.apps) {
      for (const row of app.rows) {
        if (row.pid === null || row.pid_start_time === null) continue
        const current = yield* readStartTime(row.pid)
        if (Option.isNone(current) || current.value !== row.pid_start_time) continue
        if (app.definition.exec_mode === "cluster") {
          // A worker of a primary that lost its daemon: the whole cluster (the primary's process
          // group, which its workers share) is stopped, and the app started again.
          const stat = yield* readProcStat(row.pid)
          if (Option.isSome(stat) && stat.value.pgrp > 1 && stat.value.pgrp !== ownGroup())
            toStop.push({ pgid: stat.value.pgrp, killTimeout: app.definition.kill_timeout })
          continue
        }
        const pair =
          row.pipes !== undefined && row.pipes !== null && isPipeName(row.pipes)
            ? pairAt(options.pipesDir, row.pipes)
            : null
        if (!options.held.has(row.id) && row.desired === "running" && pair !== null && pairExists(pair)) {
          adopt.set(row.id, {
            pid: row.pid,
            startTime: row.pid_start_time,
            startedAt: row.started_at ?? now,
            pipes: pair
          })
        } else {
          toStop.push({ pgid: row.pid, killTimeout: app.definition.kill_timeout, signal: killSignalOf(app.definition) })
        }
      }
    }

    const inUse = new Set([...adopt.values()].flatMap(({ pipes }) => [pipes.out, pipes.err]))
    let unused: Array<string> = []
    try {
      unused = fs
        .readdirSync(options.pipesDir)
        .map((entry) => path.join(options.pipesDir, entry))
        .filter((file) => !inUse.has(file) && !file.endsWith(".partial"))
    } catch {
      // No pipes folder: nothing was ever spawned here.
    }
    if (unused.length > 0) {
      const own = ownGroup()
      const groups = new Set<number>()
      for (const pid of holdersOf(new Set(unused))) {
        const stat = yield* readProcStat(pid)
        if (Option.isSome(stat) && stat.value.pgrp > 1 && stat.value.pgrp !== own) groups.add(stat.value.pgrp)
      }
      for (const pgid of groups) {
        // A cluster's workers hold their FIFOs: their group is already being stopped.
        if (toStop.some((entry) => entry.pgid === pgid)) continue
        yield* Effect.logWarning(
          `stopping process group ${pgid}: an earlier daemon started it but died before recording it`
        )
        toStop.push({ pgid, killTimeout: SWEEP_KILL_TIMEOUT_MS })
      }
    }
    // One stop per group (a cluster's workers share their primary's).
    const groups = new Map<number, (typeof toStop)[number]>()
    for (const entry of toStop) if (!groups.has(entry.pgid)) groups.set(entry.pgid, entry)
    yield* Effect.forEach(
      [...groups.values()],
      ({ pgid, killTimeout, signal }) =>
        Effect.gen(function* () {
          yield* Effect.logInfo(`stopping process group ${pgid} left by an earlier daemon`)
          yield* stopGroup(pgid, killTimeout, signal)
          stopped.push(pgid)
        }),
      { concurrency: "unbounded", discard: true }
    )
    yield* Effect.sync(() => {
      for (const file of unused) fs.rmSync(file, { force: true })
      for (const file of unused) fs.rmSync(`${file}.partial`, { force: true })
    })
    return { adopt, stopped }
  })
