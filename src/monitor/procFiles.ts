/**
 * `/proc` files kept open between the samples of one sampling loop (docs/decisions.md, "Stat files
 * kept open").
 *
 * A `/proc` file is generated anew at every read from offset 0, so a descriptor kept open reads the
 * current figures each time: one `pread` instead of `open`, `read` and `close` — a quarter of the
 * CPU per file on the machines measured, and the loop reads one file per process every second. A
 * descriptor is tied to the process it was opened for, never to a later process given the same pid:
 * once that process is reaped, reading it fails (ESRCH), and the file is opened again by its path.
 *
 * Each {@link OpenProcFiles.sweep} closes the files that were not read since the previous one (gone
 * processes, trees no longer sampled), so what stays open is what the last sample read, and at most
 * {@link keptLimit} of them: a daemon's apps need descriptors too (their pipes and log files), so the
 * files beyond it are read the plain way.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import { openSmallFile, readOpenSmallFile, readSmallFile } from "./procfs"

export interface OpenProcFiles {
  /** The text of the small `/proc` file at `path` (one read of up to 4 KiB); undefined when gone. */
  readonly read: (path: string) => string | undefined
  /** Closes the files not read since the previous sweep. */
  readonly sweep: () => void
  /** How many files are open now. */
  readonly size: () => number
  /** Closes every file. */
  readonly close: () => void
}

/** At most this many descriptors, and at most an eighth of the process's limit of open files. */
const MAX_KEPT = 512

/** The soft limit of open files, from `/proc/self/limits` ("Max open files  1024  4096  files"). */
const openFilesLimit = (): number | undefined => {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readSmallFile("/proc/self/limits") ?? "")
  if (match === null) return undefined
  return match[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(match[1])
}

/** How many files one {@link OpenProcFiles} keeps open at most. */
export const keptLimit = (): number => Math.min(MAX_KEPT, Math.floor((openFilesLimit() ?? 1024) / 8))

interface KeptFile {
  readonly fd: number
  /** The sweep round of its last read. */
  round: number
}

/** Kept-open files; the caller closes them ({@link openProcFiles} does it for a scope). */
export const makeOpenProcFiles = (limit: number = keptLimit()): OpenProcFiles => {
  const kept = new Map<string, KeptFile>()
  let round = 0

  const forget = (path: string, file: KeptFile): void => {
    kept.delete(path)
    try {
      fs.closeSync(file.fd)
    } catch {
      // Already closed: nothing is held.
    }
  }

  const read = (path: string): string | undefined => {
    const file = kept.get(path)
    if (file !== undefined) {
      const text = readOpenSmallFile(file.fd)
      if (text !== undefined) {
        file.round = round
        return text
      }
      // The process it was opened for is gone; the pid may name a newer one: open the path again.
      forget(path, file)
    }
    if (kept.size >= limit) return readSmallFile(path)
    const fd = openSmallFile(path)
    if (fd === undefined) return undefined
    const text = readOpenSmallFile(fd)
    if (text === undefined) {
      // ESRCH: the process exited between open and read.
      fs.closeSync(fd)
      return undefined
    }
    kept.set(path, { fd, round })
    return text
  }

  const sweep = (): void => {
    for (const [path, file] of kept) if (file.round !== round) forget(path, file)
    round++
  }

  const close = (): void => {
    for (const [path, file] of kept) forget(path, file)
  }

  return { read, sweep, size: () => kept.size, close }
}

/** Kept-open files closed when the scope closes. */
export const openProcFiles = (limit?: number): Effect.Effect<OpenProcFiles, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => makeOpenProcFiles(limit)),
    (files) => Effect.sync(() => files.close())
  )
