/**
 * One daemon per PMFX_HOME (docs/decisions.md, "The daemon lock knows its owner"). `daemon.pid` is
 * created exclusively (O_EXCL) and holds the owner's pid alone, as pid files do (so that
 * `kill $(cat daemon.pid)` stays right); `daemon.owner` beside it records who that pid was — the
 * pid and its start time from `/proc/<pid>/stat` — because a pid alone is not a process: after a
 * crash, the number may be a zombie that nobody reaps yet, or a process that got the number later.
 *
 * The lock is held only while its pid is alive, not a zombie, and is the recorded process (same
 * start time). Without a record for that pid (a daemon of an older pmfx, or one caught between
 * creating the two files) it counts as held only if the process runs a pmfx daemon by its command
 * line, or the pid file is seconds old. Anything else is a stale lock, taken over.
 */
import { Data, Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileError } from "../domain/errors"
import { parseProcStat } from "../monitor/procfs"
import { unsafeWriteFileAtomically } from "./atomicWrite"

export class DaemonAlreadyRunning extends Data.TaggedError("DaemonAlreadyRunning")<{
  readonly pid: number
  readonly file: string
}> {}

/** FILE_ERROR for lock files that cannot be written (a full disk, a read-only home); nothing of them is left behind. */
const lockUnwritable = (file: string, error: unknown): FileError => {
  const code = (error as { readonly code?: unknown } | null)?.code
  const errno = typeof code === "string" ? code : "EIO"
  const why =
    errno === "ENOSPC" || errno === "EDQUOT"
      ? `the disk holding ${path.dirname(file)} is full`
      : error instanceof Error
        ? error.message
        : String(error)
  return new FileError({
    message: `the daemon cannot start: its lock ${file} cannot be written: ${why} (${errno})`,
    details: {
      path: file,
      reason: errno,
      suggestion: `free space on that disk (or make ${path.dirname(file)} writable) and run the command again`
    }
  })
}

/** A pid file younger than this, whose owner lives, is a daemon that has not written its record yet. */
const FRESH_LOCK_MS = 5_000

const ownerFileOf = (pidFile: string) => path.join(path.dirname(pidFile), "daemon.owner")

/** State and start time of a process, or undefined when there is none with that pid. */
const procStat = (pid: number): { readonly state: string; readonly startTime: number } | undefined => {
  try {
    const stat = parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, "latin1"), 4096)
    return stat === undefined ? undefined : { state: stat.state, startTime: stat.startTime }
  } catch {
    return undefined
  }
}

/** Whether a command line is a pmfx daemon's: the daemon bundle, or the launcher with `daemon`. */
const runsPmfxDaemon = (pid: number): boolean => {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
    return (
      args.some((arg) => arg.endsWith("daemon.cjs")) ||
      (args.some((arg) => arg.endsWith("pmfx.cjs")) && args.includes("daemon"))
    )
  } catch {
    return false
  }
}

const readPidFile = (file: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(file, "utf8").trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** `daemon.owner`: "<pid> <start time in clock ticks since boot>". */
const readOwnerRecord = (pidFile: string): { readonly pid: number; readonly startTime: number } | undefined => {
  try {
    const [pid, startTime] = fs.readFileSync(ownerFileOf(pidFile), "utf8").trim().split(/\s+/).map(Number)
    return Number.isInteger(pid) && Number.isInteger(startTime) ? { pid: pid!, startTime: startTime! } : undefined
  } catch {
    return undefined
  }
}

const ageMs = (file: string): number => {
  try {
    return Date.now() - fs.statSync(file).mtimeMs
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** Whether `pid`, named by the pid file, is the daemon that holds the lock (see the module comment). */
const holds = (pidFile: string, pid: number): boolean => {
  if (pid === process.pid) return false
  const stat = procStat(pid)
  if (stat === undefined) {
    // No /proc entry: gone, or /proc hides it (another pid namespace); the kernel still knows.
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM"
    }
  }
  if (stat.state === "Z" || stat.state === "X") return false
  const record = readOwnerRecord(pidFile)
  if (record !== undefined && record.pid === pid) return record.startTime === stat.startTime
  return runsPmfxDaemon(pid) || ageMs(pidFile) < FRESH_LOCK_MS
}

/**
 * The pid of the live daemon that holds the lock in `pidFile`, or null when there is none (no file,
 * or a stale one). For the CLI (`pmfx kill`), which must not take a stranger for the daemon.
 */
export const lockHolder = (pidFile: string): number | null => {
  const pid = readPidFile(pidFile)
  return pid !== undefined && holds(pidFile, pid) ? pid : null
}

const tryCreate = (file: string): boolean => {
  let fd: number
  try {
    fd = fs.openSync(file, "wx", 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
  try {
    const pid = Buffer.from(`${process.pid}\n`)
    if (fs.writeSync(fd, pid) !== pid.length) throw Object.assign(new Error(`${file}: short write`), { code: "ENOSPC" })
  } catch (error) {
    // A full disk creates the file but not its content: an empty lock would stop the next starter.
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
    throw error
  }
  fs.closeSync(fd)
  return true
}

const writeOwnerRecord = (pidFile: string): void => {
  const startTime = procStat(process.pid)?.startTime ?? 0
  const failed = unsafeWriteFileAtomically(ownerFileOf(pidFile), Buffer.from(`${process.pid} ${startTime}\n`), {
    mode: 0o600,
    durable: false
  })
  if (failed !== null) throw Object.assign(new Error(failed.reason), { code: failed.code })
}

/**
 * Removes a stale pid file naming `stalePid`, unless another starter replaced it meanwhile: the
 * file is first renamed aside (atomic), and put back when it turns out to be someone's fresh lock.
 */
const removeStale = (pidFile: string, stalePid: number | undefined): void => {
  const aside = `${pidFile}.stale-${process.pid}`
  try {
    fs.renameSync(pidFile, aside)
  } catch {
    return // Already gone: another starter removed it.
  }
  if (readPidFile(aside) !== stalePid) {
    try {
      fs.linkSync(aside, pidFile)
    } catch {
      // A third starter created one meanwhile: its lock stands.
    }
  }
  fs.rmSync(aside, { force: true })
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/** Holds the lock for the life of the scope. */
export const acquireDaemonLock = (file: string): Effect.Effect<void, DaemonAlreadyRunning | FileError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend((): Effect.Effect<void, DaemonAlreadyRunning | FileError> => {
      for (let attempt = 0; attempt < 20; attempt++) {
        let created = false
        try {
          created = tryCreate(file)
          if (created) writeOwnerRecord(file)
        } catch (error) {
          // Our own lock, half made: removed, so that nothing stops the next start once there is room.
          if (created) fs.rmSync(file, { force: true })
          return Effect.fail(lockUnwritable(file, error))
        }
        if (created) return Effect.void
        const owner = readPidFile(file)
        if (owner === undefined && ageMs(file) < FRESH_LOCK_MS) {
          // Created by another starter that has not written its pid yet (microseconds).
          sleepSync(20)
          continue
        }
        if (owner !== undefined && holds(file, owner))
          return Effect.fail(new DaemonAlreadyRunning({ pid: owner, file }))
        removeStale(file, owner)
      }
      return Effect.fail(new DaemonAlreadyRunning({ pid: readPidFile(file) ?? 0, file }))
    }),
    () =>
      Effect.sync(() => {
        if (readPidFile(file) !== process.pid) return
        if (readOwnerRecord(file)?.pid === process.pid) fs.rmSync(ownerFileOf(file), { force: true })
        fs.rmSync(file, { force: true })
      })
  )
