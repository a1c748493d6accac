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
import { environHas, liveGroupMembers, type ProcessTable, readProcStat, readProcessTable } from "../monitor/procfs"

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
  /** pid → start time of every process seen in the run's tree. */
  readonly seen: Map<number, number>
}

export const makeFamily = (leader: number, runId: string, bornAfter: number, leaderStart: number | undefined): ProcessFamily => ({
  leader,
  runId,
  bornAfter,
  leaderStart,
  seen: new Map()
})

/**
 * Updates the record from a metrics sample of the leader's tree (pid and start time of each):
 * the tree's processes are kept, and so are earlier ones that left the tree but still run with the
 * same start time (reparented escapees). The dead are dropped, so the record stays as small as
 * what runs, however many short-lived children the app forks.
 */
export const refreshFromSample = (family: ProcessFamily, tree: ReadonlyArray<readonly [number, number]>): Effect.Effect<void> =>
  Effect.gen(function* () {
    const next = new Map<number, number>()
    for (const [pid, startTime] of tree) if (startTime >= family.bornAfter) next.set(pid, startTime)
    for (const [pid, startTime] of family.seen) {
      if (next.has(pid)) continue
      const stat = yield* readProcStat(pid)
      if (Option.isSome(stat) && stat.value.startTime === startTime && stat.value.state !== "Z") next.set(pid, startTime)
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

const marker = (family: ProcessFamily) => `${RUN_ID_VARIABLE}=${family.runId}`

/**
 * The live members of the run in `table`: its group, its tree, what was seen before (same start
 * time), and — when `scanEnvironment` — any process born since the run began that carries its
 * marker. Zombies are dead and left out; this process (the daemon) never counts.
 */
export const liveMembers = (family: ProcessFamily, table: ProcessTable, scanEnvironment: boolean): ReadonlyArray<number> => {
  const ours = groupIsOurs(family, table)
  if (ours) recordTree(family, table)
  const members: Array<number> = []
  const tag = marker(family)
  for (const stat of table.values()) {
    if (stat.state === "Z" || stat.pid === process.pid || stat.startTime < family.bornAfter) continue
    const known = (ours && stat.pgrp === family.leader) || family.seen.get(stat.pid) === stat.startTime
    if (known || (scanEnvironment && environHas(stat.pid, tag))) {
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

/** Signals the group and every member; a member is re-checked by start time just before. */
const signalAll = (family: ProcessFamily, members: ReadonlyArray<number>, table: ProcessTable, name: NodeJS.Signals): void => {
  if (groupIsOurs(family, table)) signal(-family.leader, name)
  for (const pid of members) {
    if (table.get(pid)?.startTime === family.seen.get(pid)) signal(pid, name)
  }
}

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
 * Stops the whole run: SIGTERM to the group and every member, SIGKILL after `killTimeoutMs` to
 * whatever is left, then one more sweep for members born meanwhile (a shell's trap, a supervisor
 * inside the app restarting its child). Uninterruptible, so an interrupted stop still finishes.
 */
export const stopFamily = (family: ProcessFamily, killTimeoutMs: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    let table = yield* readProcessTable()
    let members = liveMembers(family, table, true)
    if (members.length === 0) return
    signalAll(family, members, table, "SIGTERM")
    if (!(yield* awaitGone(family, killTimeoutMs))) {
      table = yield* readProcessTable()
      signalAll(family, liveMembers(family, table, false), table, "SIGKILL")
      yield* awaitGone(family, 5_000)
    }
    table = yield* readProcessTable()
    members = liveMembers(family, table, true)
    if (members.length > 0) {
      signalAll(family, members, table, "SIGKILL")
      yield* awaitGone(family, 5_000)
    }
  }).pipe(Effect.uninterruptible)

/** Kills what is left of a run whose leader has exited (a crash): SIGKILL, no grace. */
export const killFamilyLeftovers = (family: ProcessFamily): Effect.Effect<void> =>
  Effect.gen(function* () {
    const table = yield* readProcessTable()
    const members = liveMembers(family, table, true)
    if (members.length === 0) return
    signalAll(family, members, table, "SIGKILL")
    yield* awaitGone(family, 5_000)
  }).pipe(Effect.uninterruptible)
