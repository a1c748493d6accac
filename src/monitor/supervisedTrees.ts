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
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import {
  type ProcessTable,
  type ProcStat,
  pageSize,
  readProcessTable,
  readSmallFile,
  readStat,
  SMALL_FILE_BYTES
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
const childrenOfTask = (pid: number, tid: string, into: Array<number>): void => {
  const path = `/proc/${pid}/task/${tid}/children`
  // Through procfs's shared buffer (open, read, close: half the CPU of readFileSync's open, fstat,
  // read, close and its allocations; an idle daemon's samples are mostly these reads). A thread with
  // ~600 children or more fills the buffer: its file is read whole. "Fills": the kernel answers a
  // read with whole entries only, so a cut list ends a few bytes short of the buffer's end.
  let text = readSmallFile(path)
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

const childrenOf = (pid: number, into: Array<number>): void => {
  let tids: Array<string>
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return
  }
  for (const tid of tids) childrenOfTask(pid, tid, into)
}

/** Walks the trees of `roots` through the children files. */
export const walkSupervisedTrees = (roots: ReadonlyArray<number>): ProcessTable => {
  const bytesPerPage = pageSize()
  const table = new Map<number, ProcStat>()
  const queue: Array<number> = [...roots]
  for (let next = 0; next < queue.length; next++) {
    const pid = queue[next]!
    // A recycled pid can show up twice while the trees change under the walk.
    if (table.has(pid)) continue
    const stat = readStat(pid, bytesPerPage)
    if (stat === undefined) continue
    table.set(pid, stat)
    childrenOf(pid, queue)
  }
  return table
}

/** The processes of the trees rooted at `roots` (all of `/proc` on kernels without children files). */
export const readSupervisedTrees = (roots: ReadonlyArray<number>): Effect.Effect<ProcessTable> =>
  Effect.suspend(() => (hasChildrenFiles() ? Effect.sync(() => walkSupervisedTrees(roots)) : readProcessTable()))
