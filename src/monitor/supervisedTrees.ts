/**
 * The part of the process table the metrics need: the supervised trees only (docs/architecture.md §4 Metrics).
 *
 * Each root's `/proc/<pid>/stat` is read, then its descendants are found through
 * `/proc/<pid>/task/<tid>/children` (every thread's list: a child belongs to the thread that forked
 * it) — a few files per supervised process instead of one per process of the whole machine. Those
 * files exist only when the kernel was built with `CONFIG_PROC_CHILDREN` (most distribution kernels;
 * not every container host): without them, the whole table is read as before. The result is a
 * {@link ProcessTable} holding just these processes, so {@link descendantsOf} walks it unchanged.
 *
 * A descendant re-parented away from the tree (a daemonizing grandchild adopted by init) is not in
 * either reading: both follow parent links.
 *
 * The walk is not always the cheaper reading: it costs each process its stat, its `task` folder and
 * one children file per thread (a Node app has 7 threads, so 9 reads), the whole table one stat per
 * process of the machine. 10 Node apps on a server of a few hundred processes: the walk (90 reads).
 * 100 Node apps on a machine of 170 processes: the table (170 reads against 900). The sampling loop's
 * reader ({@link makeTreeReader}) takes the cheaper of the two each time, from the counts of the
 * previous samples (docs/decisions.md, "The cheaper reading of the trees").
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import type { OpenProcFiles } from "./procFiles"
import { descendantsOf } from "./processTree"
import {
  countProcesses,
  type ProcessTable,
  type ProcStat,
  pageSize,
  type ReadProcFile,
  readSmallFile,
  readStat,
  SMALL_FILE_BYTES,
  scanProcessTable
} from "./procfs"

let childrenFilesCache: boolean | undefined

/** Whether this kernel has `/proc/<pid>/task/<tid>/children` (checked once, on the daemon itself). */
export const hasChildrenFiles = (): boolean => {
  childrenFilesCache ??= fs.existsSync(`/proc/${process.pid}/task/${process.pid}/children`)
  return childrenFilesCache
}

/** More than one entry of a children file ("4194304 ", the largest pid and its space). */
const CHILDREN_ENTRY_MARGIN = 64

/** The pids listed in one children file; none when the thread or process is gone. */
const childrenOfTask = (pid: number, tid: string, into: Array<number>, read: ReadProcFile): void => {
  const path = `/proc/${pid}/task/${tid}/children`
  // One read of up to 4 KiB (a kept descriptor's pread, or open, read, close: half the CPU of
  // readFileSync's open, fstat, read, close and its allocations; an idle daemon's samples are mostly
  // these reads). A thread with ~600 children or more fills the buffer: its file is read whole.
  // "Fills": the kernel answers a read with whole entries only, so a cut list ends a few bytes short
  // of the buffer's end.
  let text = read(path)
  if (text !== undefined && text.length > SMALL_FILE_BYTES - CHILDREN_ENTRY_MARGIN) {
    try {
      text = fs.readFileSync(path, "latin1")
    } catch {
      return
    }
  }
  if (text === undefined) return
  let start = 0
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length || text.charCodeAt(i) === 32) {
      if (i > start) into.push(Number(text.slice(start, i)))
      start = i + 1
    }
  }
}

/** The children of every thread of `pid` into `into`; returns how many threads it read. */
const childrenOf = (pid: number, into: Array<number>, read: ReadProcFile): number => {
  let tids: Array<string>
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return 0
  }
  for (const tid of tids) childrenOfTask(pid, tid, into, read)
  return tids.length
}

/** Files a walk reads for one process: its stat, its `task` folder, one children file per thread. */
const walkReadsOf = (threads: number): number => 2 + threads

/** Walks the trees of `roots` through the children files; `reads` is what the walk read. */
const walk = (
  roots: ReadonlyArray<number>,
  read: ReadProcFile
): { readonly table: ProcessTable; readonly reads: number } => {
  const bytesPerPage = pageSize()
  const table = new Map<number, ProcStat>()
  const queue: Array<number> = [...roots]
  let reads = 0
  for (let next = 0; next < queue.length; next++) {
    const pid = queue[next]!
    // A recycled pid can show up twice while the trees change under the walk.
    if (table.has(pid)) continue
    const stat = readStat(pid, bytesPerPage, read)
    reads++
    if (stat === undefined) continue
    table.set(pid, stat)
    reads += 1 + childrenOf(pid, queue, read)
  }
  return { table, reads }
}

/** Walks the trees of `roots` through the children files. */
export const walkSupervisedTrees = (roots: ReadonlyArray<number>): ProcessTable => walk(roots, readSmallFile).table

/** Walks between two counts of `/proc` (one pass over the folder, ~0.2 ms for 400 processes). */
const RECOUNT_EVERY = 10

export type TreeReading = "walk" | "table"

/** A reader of the supervised trees that takes the cheaper reading each time, for one sampling loop. */
export interface TreeReader {
  /** The processes of the trees rooted at `roots` (all of `/proc` on kernels without children files). */
  readonly read: (roots: ReadonlyArray<number>) => Effect.Effect<ProcessTable>
  /** The last read's choice and the counts it was made on (undefined before the first read). */
  readonly last: () =>
    | { readonly reading: TreeReading; readonly walkReads: number; readonly processes: number }
    | undefined
}

/**
 * The reader of the sampling loop. Each read takes the whole table when the machine's processes
 * (counted every {@link RECOUNT_EVERY} walks, and by every table read) are fewer than the files the
 * trees' walk needs (what the last walk read, or, after a table read, what the trees in it would
 * cost to walk); the walk otherwise, and always first. Both readings give the same trees, so a stale
 * count costs time, never a process. With `files`, the reads go through descriptors kept open between
 * reads (./procFiles.ts), swept after each read.
 */
export const makeTreeReader = (files?: OpenProcFiles): TreeReader => {
  const readFile: ReadProcFile = files === undefined ? readSmallFile : files.read
  let walkReads: number | undefined
  let processes: number | undefined
  let walksSinceCount = 0
  let lastReading: TreeReading | undefined
  const readTrees = (roots: ReadonlyArray<number>): ProcessTable => {
    if (processes === undefined || walksSinceCount >= RECOUNT_EVERY) {
      processes = countProcesses()
      walksSinceCount = 0
    }
    if (walkReads !== undefined && processes < walkReads) {
      const scanned = scanProcessTable(readFile)
      processes = scanned.entries
      let reads = 0
      for (const root of roots) {
        for (const pid of descendantsOf(root, scanned.table)) reads += walkReadsOf(scanned.table.get(pid)?.threads ?? 0)
      }
      walkReads = reads
      lastReading = "table"
      return scanned.table
    }
    const walked = walk(roots, readFile)
    walkReads = walked.reads
    walksSinceCount++
    lastReading = "walk"
    return walked.table
  }
  const read = (roots: ReadonlyArray<number>): ProcessTable => {
    const table = hasChildrenFiles() ? readTrees(roots) : scanProcessTable(readFile).table
    files?.sweep()
    return table
  }
  return {
    read: (roots) => Effect.sync(() => read(roots)),
    last: () =>
      lastReading === undefined || walkReads === undefined || processes === undefined
        ? undefined
        : { reading: lastReading, walkReads, processes }
  }
}
