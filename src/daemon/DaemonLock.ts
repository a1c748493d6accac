/**
 * One daemon per PMFX_HOME: `daemon.pid` is created exclusively (O_EXCL) and holds the owner's
 * pid. A file left by a daemon that died is taken over; one whose owner lives means another daemon
 * runs, and this one must not start.
 */
import { Data, Effect } from "effect"
import * as fs from "node:fs"

export class DaemonAlreadyRunning extends Data.TaggedError("DaemonAlreadyRunning")<{ readonly pid: number; readonly file: string }> {}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryCreate = (file: string): boolean => {
  try {
    const fd = fs.openSync(file, "wx", 0o600)
    fs.writeSync(fd, `${process.pid}\n`)
    fs.closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/** Holds the lock for the life of the scope. */
export const acquireDaemonLock = (file: string): Effect.Effect<void, DaemonAlreadyRunning, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (tryCreate(file)) return Effect.void
        const owner = Number(fs.readFileSync(file, "utf8").trim())
        if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
          return Effect.fail(new DaemonAlreadyRunning({ pid: owner, file }))
        }
        // A stale lock: its daemon is gone. Remove it and try again (another starter may race us).
        fs.rmSync(file, { force: true })
      }
      return Effect.fail(new DaemonAlreadyRunning({ pid: 0, file }))
    }),
    () =>
      Effect.sync(() => {
        try {
          if (Number(fs.readFileSync(file, "utf8").trim()) === process.pid) fs.rmSync(file, { force: true })
        } catch {
          // Already gone.
        }
      })
  )
