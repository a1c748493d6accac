/**
 * Every process one run of an app started, including those that left its process group (defect 8
 * of issue 11: `setsid`, a Node child spawned `detached: true`, a double fork that is reparented to
 * init at once). Stopping the group alone would leave them running; pmfx finds them three ways
 * (docs/decisions.md, "Stopping what escaped the process group"):
 *
 * 1. the process group (the app's own, `pgid` = leader pid);
 * 2. every descendant ever seen — recorded as (pid, start time) at each metrics sample and at stop,
 *    so a pid reused by an unrelated process (other start time) is never signalled;
 * 3. the run's marker: each run gets a unique `PMFX_RUN_ID` in its environment, which children
 *    inherit; a process born after the run started whose `/proc/<pid>/environ` holds it belongs to
 *    the run even when its parent exited before any sample saw it.
 *
 * A process that both leaves the group and clears its environment before a sample sees it is out
 * of reach (a cgroup would catch it: see the decision).
 */
import { Clock, Duration, Effect, Option } from "effect"
import { descendantsOf } from "../monitor/processTree"
import {
  environValue,
  liveGroupMembers,
  pageSize,
  type ProcessTable,
  readProcStat,
  readProcessTable,
  readStat
} from "../monitor/procfs"

export const RUN_ID_VARIABLE = "PMFX_RUN_ID"

export interface ProcessFamily {
  /** The process the run spawned: its pid is also the run's process group id. */
  readonly leader: number
  /** The run's marker, `PMFX_RUN_ID` in the environment of everything it starts. */
  readonly runId: string
  /** Boot-relative clock ticks read just before the spawn: every member was born at or after it. */
  readonly bornAfter: number
  /** The leader's start time, to tell its group from a later group that reused the id. */
  readonly leaderStart: number | undefined
  /** When the leader was spawned (ms): a shared table read before it cannot show the run. */
  readonly spawnedAt: number
  /** pid → start time of every process seen in the run's tree. */
  readonly seen: Map<number, number>
}

export const makeFamily = (
  leader: number,
  runId: string,
  bornAfter: number,
  leaderStart: number | undefined,
  spawnedAt: number
): ProcessFamily => ({
  leader,
  runId,
  bornAfter,
  leaderStart,
  spawnedAt,
  seen: new Map(leaderStart === undefined ? [] : [[leader, leaderStart]])
})

/**
 * Updates the record from a metrics sample of the leader's tree (pid and start time of each):
 * the tree's processes are kept, and so are earlier ones that left the tree but still run with the
 * same start time (reparented escapees). The dead are dropped, so the record stays as small as
 * what runs, however many short-lived children the app forks.
 */
export const refreshFromSample = (
  family: ProcessFamily,
  tree: ReadonlyArray<readonly [number, number]>
): Effect.Effect<void> =>
  // One synchronous step: it runs for every row at every sample (reads of /proc are synchronous anyway).
  Effect.sync(() => {
    const next = new Map<number, number>()
    for (const [pid, startTime] of tree) if (startTime >= family.bornAfter) next.set(pid, startTime)
    for (const [pid, startTime] of family.seen) {
      if (next.has(pid)) continue
      const stat = readStat(pid, pageSize())
      if (stat !== undefined && stat.startTime === startTime && stat.state !== "Z") next.set(pid, startTime)
    }
    family.seen.clear()
    for (const [pid, startTime] of next) family.seen.set(pid, startTime)
  })

/** Whether group `leader` is still this run's (a pid, and so a group id, may be reused once both are gone). */
const groupIsOurs = (family: ProcessFamily, table: ProcessTable): boolean => {
  const leader = table.get(family.leader)
  return leader === undefined || family.leaderStart === undefined || leader.startTime === family.leaderStart
}

/** Remembers the leader's current descendants (the tree is walked by parent pid). */
export const recordTree = (family: ProcessFamily, table: ProcessTable): void => {
  for (const pid of descendantsOf(family.leader, table)) {
    const stat = table.get(pid)
    if (stat !== undefined && stat.startTime >= family.bornAfter) family.seen.set(pid, stat.startTime)
  }
}

/**
 * Shared by every family of the daemon, because `stop all` stops every app at once: one pass over
 * /proc and one read of each process's environment serve all of them, instead of one per app
 * (50 apps would read 50 tables and 50 × 50 environments).
 */
const shared = {
  /** The last table read, and when its read began (ms). */
  table: undefined as ProcessTable | undefined,
  readAt: 0,
  /** `PMFX_RUN_ID` of each process (null: none), valid while its start time matches. */
  runIds: new Map<number, { readonly startTime: number; readonly runId: string | null }>()
}

/** How old a shared table may be for the first sweep of a stop (the last sweep catches later births). */
const FIRST_SWEEP_MAX_AGE_MS = 100

/** A table whose read began at or after `notBefore` (ms); the shared one when it qualifies. */
const tableSince = (notBefore: number): Effect.Effect<ProcessTable> =>
  Effect.gen(function* () {
    if (shared.table !== undefined && shared.readAt >= notBefore) return shared.table
    const readAt = yield* Clock.currentTimeMillis
    const table = yield* readProcessTable()
    shared.table = table
    shared.readAt = readAt
    for (const [pid, known] of shared.runIds)
      if (table.get(pid)?.startTime !== known.startTime) shared.runIds.delete(pid)
    return table
  })

const runIdOf = (pid: number, startTime: number): string | null => {
  const known = shared.runIds.get(pid)
  if (known !== undefined && known.startTime === startTime) return known.runId
  const runId = environValue(pid, RUN_ID_VARIABLE)
  shared.runIds.set(pid, { startTime, runId })
  return runId
}

/**
 * The live members of the run in `table`: its group, its tree, what was seen before (same start
 * time), and — when `scanEnvironment` — any process born since the run began that carries its
 * marker. Zombies are dead and left out; this process (the daemon) never counts.
 */
export const liveMembers = (
  family: ProcessFamily,
  table: ProcessTable,
  scanEnvironment: boolean
): ReadonlyArray<number> => {
  const ours = groupIsOurs(family, table)
  if (ours) recordTree(family, table)
  const members: Array<number> = []
  for (const stat of table.values()) {
    if (stat.state === "Z" || stat.pid === process.pid || stat.startTime < family.bornAfter) continue
    const known = (ours && stat.pgrp === family.leader) || family.seen.get(stat.pid) === stat.startTime
    if (known || (scanEnvironment && runIdOf(stat.pid, stat.startTime) === family.runId)) {
      family.seen.set(stat.pid, stat.startTime)
      members.push(stat.pid)
    }
  }
  return members
}

const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name)
  } catch {
    // Already gone.
  }
}

/**
 * Signals the group and every member outside it, each once: a member still in the group already
 * got the group's signal, and a second SIGTERM would end an app whose graceful handler is
 * `process.once('SIGTERM', …)` at once (Node's default action). Each member's start time and group
 * are read again just before its signal (the table may be a moment old, and a pid freed since may
 * already be someone else's).
 */
const signalAll = (
  family: ProcessFamily,
  members: ReadonlyArray<number>,
  table: ProcessTable,
  name: NodeJS.Signals
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const groupSignalled = groupIsOurs(family, table)
    if (groupSignalled) signal(-family.leader, name)
    for (const pid of members) {
      const stat = yield* readProcStat(pid)
      if (Option.isNone(stat) || stat.value.startTime !== family.seen.get(pid) || stat.value.state === "Z") continue
      if (groupSignalled && stat.value.pgrp === family.leader) continue
      signal(pid, name)
    }
  })

/**
 * Whether a known member still lives: the group (without a pass over /proc when it is empty) or
 * any recorded (pid, start time). A new member would be found by the next full sweep.
 */
const anyKnownAlive = (family: ProcessFamily): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    if ((yield* liveGroupMembers(family.leader)).length > 0) return true
    for (const [pid, startTime] of family.seen) {
      const stat = yield* readProcStat(pid)
      if (Option.isSome(stat) && stat.value.startTime === startTime && stat.value.state !== "Z") return true
    }
    return false
  })

/** Waits until no known member lives, up to `timeoutMs`; true when they are all gone. */
const awaitGone = (family: ProcessFamily, timeoutMs: number): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
    for (;;) {
      if (!(yield* anyKnownAlive(family))) return true
      if ((yield* Clock.currentTimeMillis) >= deadline) return false
      yield* Effect.sleep(Duration.millis(20))
    }
  })

/**
 * Stops the whole run: `first` (the app's kill_signal, domain/killSignal.ts) to the group and every
 * member, SIGKILL after `killTimeoutMs` to
 * whatever is left, then one more sweep for members born meanwhile (a shell's trap, a supervisor
 * inside the app restarting its child). Uninterruptible, so an interrupted stop still finishes.
 */
export const stopFamily = (
  family: ProcessFamily,
  killTimeoutMs: number,
  first: NodeJS.Signals = "SIGTERM"
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    let table = yield* tableSince(Math.max(now - FIRST_SWEEP_MAX_AGE_MS, family.spawnedAt))
    let members = liveMembers(family, table, true)
    if (members.length === 0 && !(yield* anyKnownAlive(family))) return
    const signalledAt = yield* Clock.currentTimeMillis
    yield* signalAll(family, members, table, first)
    if (!(yield* awaitGone(family, killTimeoutMs))) {
      table = yield* readProcessTable()
      yield* signalAll(family, liveMembers(family, table, false), table, "SIGKILL")
      yield* awaitGone(family, 5_000)
    }
    // A table read after the signals (perhaps shared with another stop): a member born after the
    // first sweep, during the grace period, is in it. Members it shows that have died since are
    // skipped by signalAll's fresh start-time check.
    table = yield* tableSince(signalledAt)
    members = liveMembers(family, table, true)
    if (members.length > 0) {
      yield* signalAll(family, members, table, "SIGKILL")
      yield* awaitGone(family, 5_000)
    }
  }).pipe(Effect.uninterruptible)

/** Kills what is left of a run whose leader has exited (a crash): SIGKILL, no grace. */
export const killFamilyLeftovers = (family: ProcessFamily): Effect.Effect<void> =>
  Effect.gen(function* () {
    const table = yield* tableSince(yield* Clock.currentTimeMillis)
    const members = liveMembers(family, table, true)
    if (members.length === 0) return
    yield* signalAll(family, members, table, "SIGKILL")
    yield* awaitGone(family, 5_000)
  }).pipe(Effect.uninterruptible)
