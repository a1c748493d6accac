/**
 * Reads Linux's `/proc/<pid>/stat` files: one pass over `/proc` gives the process tree (ppid), the
 * process groups, CPU ticks and RSS of every process at once, which is why pmfx does not use
 * `pidusage` (docs/architecture.md §4, §10: metrics for 100 processes each second under 2% of one core).
 *
 * Reads are synchronous on purpose: a `/proc` file is generated in memory by the kernel, an
 * open/read/close costs a few microseconds, while an async read costs a thread-pool round trip and
 * several promises per file. A whole table is a few milliseconds of CPU at most.
 */
import { Effect, Option } from "effect"
import * as fs from "node:fs"

/** One line of `/proc/<pid>/stat`, reduced to what pmfx uses. */
export interface ProcStat {
  readonly pid: number
  readonly ppid: number
  /** Process group id. */
  readonly pgrp: number
  /** One character: `R` running, `S` sleeping, `Z` zombie, ... */
  readonly state: string
  /** CPU time in user mode, clock ticks ({@link CLK_TCK} per second). */
  readonly utime: number
  /** CPU time in kernel mode, clock ticks. */
  readonly stime: number
  /** Field 22: when the process started, clock ticks since boot. With the pid, it names a process uniquely. */
  readonly startTime: number
  /** Resident set size in bytes. */
  readonly rss: number
  /** Field 20: the process's threads (each has a children file of its own, see supervisedTrees.ts). */
  readonly threads: number
}

export type ProcessTable = ReadonlyMap<number, ProcStat>

/**
 * Clock ticks per second of the times in `/proc` (`USER_HZ`). The kernel reports these files in
 * USER_HZ, which is 100 on every Linux architecture Node runs on, whatever the kernel's own HZ; the
 * C library's `sysconf(_SC_CLK_TCK)` is hard-wired to it too.
 */
export const CLK_TCK = 100

const FALLBACK_PAGE_SIZE = 4096
const KNOWN_PAGE_SIZES: ReadonlySet<number> = new Set([4096, 16384, 65536])

/** Bytes {@link readSmallFile} reads at most: a text of this length may have been cut short. */
export const SMALL_FILE_BYTES = 4096

/** Shared read buffer: a stat line is a few hundred bytes (the command name is at most 16). */
const buffer = Buffer.allocUnsafe(SMALL_FILE_BYTES)

/** Opens a small `/proc` file for reading; undefined when it is gone (the process exited). */
export const openSmallFile = (path: string): number | undefined => {
  try {
    return fs.openSync(path, "r")
  } catch {
    return undefined
  }
}

/**
 * One `read` of an open small `/proc` file from its start (the kernel generates it anew at each
 * read from offset 0); undefined when its process is gone (ESRCH).
 */
export const readOpenSmallFile = (fd: number): string | undefined => {
  try {
    return buffer.toString("latin1", 0, fs.readSync(fd, buffer, 0, buffer.length, 0))
  } catch {
    return undefined
  }
}

/** Reads a small `/proc` file in one `read` call; undefined when it is gone (the process exited). */
export const readSmallFile = (path: string): string | undefined => {
  const fd = openSmallFile(path)
  if (fd === undefined) return undefined
  try {
    return readOpenSmallFile(fd)
  } finally {
    fs.closeSync(fd)
  }
}

let pageSizeCache: number | undefined

/**
 * The RSS field counts pages. Almost every machine has 4 KiB pages, but some arm64 kernels use 16 or
 * 64 KiB: the first mapping in `/proc/self/smaps` tells, read once (without spawning `getconf`).
 */
export const pageSize = (): number => {
  if (pageSizeCache === undefined) {
    const match = /KernelPageSize:\s+(\d+) kB/.exec(readSmallFile("/proc/self/smaps") ?? "")
    const detected = match === null ? FALLBACK_PAGE_SIZE : Number(match[1]) * 1024
    pageSizeCache = KNOWN_PAGE_SIZES.has(detected) ? detected : FALLBACK_PAGE_SIZE
  }
  return pageSizeCache
}

/** Fields after the name (field N at index N - 3) up to the last one used, rss (field 24). */
const LAST_FIELD = 21
/** Where each field of the line being parsed ends (parsing is synchronous: one array serves every parse). */
const fieldEnds = new Int32Array(LAST_FIELD + 1)

/** Field `index` after the name, once {@link fieldEnds} holds the line's field ends. */
const fieldAt = (line: string, close: number, index: number): string =>
  line.slice(index === 0 ? close + 2 : fieldEnds[index - 1]! + 1, fieldEnds[index])

/**
 * Parses one `/proc/<pid>/stat` line. The command name (field 2) is in parentheses and may itself
 * contain spaces and parentheses, so the other fields are the text after the LAST `)`.
 */
export const parseProcStat = (line: string, bytesPerPage: number = pageSize()): ProcStat | undefined => {
  const open = line.indexOf(" (")
  const close = line.lastIndexOf(")")
  if (open <= 0 || close < open) return undefined
  const pid = Number(line.slice(0, open))
  if (!Number.isInteger(pid)) return undefined
  // After ") ": field 3 (state) is index 0, so field N is index N - 3. Only the fields used are cut
  // out of the line: a split made ~50 strings per process per sample.
  let start = close + 2
  for (let index = 0; index <= LAST_FIELD; index++) {
    let end = line.indexOf(" ", start)
    if (end < 0) {
      // A line cut before field 24 (22 fields after the name) is not a stat line.
      if (index < LAST_FIELD) return undefined
      end = line.length
    }
    fieldEnds[index] = end
    start = end + 1
  }
  const state = fieldAt(line, close, 0)
  const ppid = Number(fieldAt(line, close, 1))
  const pgrp = Number(fieldAt(line, close, 2))
  const utime = Number(fieldAt(line, close, 11))
  const stime = Number(fieldAt(line, close, 12))
  const threads = Number(fieldAt(line, close, 17))
  const startTime = Number(fieldAt(line, close, 19))
  const rssPages = Number(fieldAt(line, close, 21))
  if (![ppid, pgrp, utime, stime, threads, startTime, rssPages].every(Number.isFinite)) return undefined
  return { pid, ppid, pgrp, state, utime, stime, startTime, rss: rssPages * bytesPerPage, threads }
}

const isPidName = (name: string): boolean => {
  const first = name.charCodeAt(0)
  return first >= 48 && first <= 57
}

/** How a small `/proc` file is read: opened each time, or through descriptors kept open (./procFiles.ts). */
export type ReadProcFile = (path: string) => string | undefined

export const readStat = (
  pid: number,
  bytesPerPage: number,
  read: ReadProcFile = readSmallFile
): ProcStat | undefined => {
  const line = read(`/proc/${pid}/stat`)
  return line === undefined ? undefined : parseProcStat(line, bytesPerPage)
}

/**
 * Every process of the system (of this pid namespace), by pid, read in one pass. Processes that exit
 * while the table is read are left out. `/proc` itself missing is a defect: pmfx is Linux only.
 */
export const readProcessTable = (): Effect.Effect<ProcessTable> => Effect.sync(() => scanProcessTable().table)

/** {@link readProcessTable}'s pass, with how many processes `/proc` listed (the pass's cost in reads). */
export const scanProcessTable = (
  read: ReadProcFile = readSmallFile
): { readonly table: ProcessTable; readonly entries: number } => {
  const bytesPerPage = pageSize()
  const table = new Map<number, ProcStat>()
  let entries = 0
  for (const name of fs.readdirSync("/proc")) {
    if (!isPidName(name)) continue
    entries++
    const stat = readStat(Number(name), bytesPerPage, read)
    if (stat !== undefined) table.set(stat.pid, stat)
  }
  return { table, entries }
}

/** How many processes `/proc` lists: one pass over the folder, no file read. */
export const countProcesses = (): number => {
  let entries = 0
  for (const name of fs.readdirSync("/proc")) if (isPidName(name)) entries++
  return entries
}

/** One process's stat line; none when it does not exist. */
export const readProcStat = (pid: number): Effect.Effect<Option.Option<ProcStat>> =>
  Effect.sync(() => Option.fromNullable(readStat(pid, pageSize())))

/** Field 22 of one process (see {@link ProcStat.startTime}); none when the process does not exist. */
export const readStartTime = (pid: number): Effect.Effect<Option.Option<number>> =>
  Effect.sync(() => Option.fromNullable(readStat(pid, pageSize())?.startTime))

/**
 * Time since boot in clock ticks, the clock of {@link ProcStat.startTime}: a process whose start time
 * is later than a reading was born after it.
 */
export const readUptimeTicks = (read: ReadProcFile = readSmallFile): Effect.Effect<number> =>
  Effect.sync(() => {
    const seconds = Number.parseFloat(read("/proc/uptime") ?? "")
    if (!Number.isFinite(seconds)) throw new Error("cannot read /proc/uptime (pmfx runs on Linux only)")
    return Math.floor(seconds * CLK_TCK)
  })

/** Pure part of {@link liveGroupMembers}, for a table already read. */
export const liveGroupMembersIn = (table: ProcessTable, pgid: number): ReadonlyArray<number> => {
  const members: Array<number> = []
  for (const stat of table.values()) {
    if (stat.pgrp === pgid && stat.state !== "Z") members.push(stat.pid)
  }
  return members
}

/**
 * Pids of the processes in group `pgid` that are still alive. Zombies do not count: they are dead
 * and only wait to be reaped, which in a container whose PID 1 never reaps may be never.
 */
export const liveGroupMembers = (pgid: number, table?: ProcessTable): Effect.Effect<ReadonlyArray<number>> =>
  table === undefined
    ? Effect.suspend(() =>
        groupMayExist(pgid)
          ? Effect.map(readProcessTable(), (read) => liveGroupMembersIn(read, pgid))
          : Effect.succeed([])
      )
    : Effect.sync(() => liveGroupMembersIn(table, pgid))

/**
 * Whether group `pgid` may have a member (a zombie included): `kill(-pgid, 0)` asks the kernel
 * without signalling anyone. Most groups are empty once their leader's exit is seen, and answering
 * that without a pass over `/proc` (a few ms with hundreds of processes) is most of what a crashed
 * app's replacement waits for (docs/benchmarks.md). Any answer but ESRCH means "look".
 */
const groupMayExist = (pgid: number): boolean => {
  if (pgid <= 1) return true
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/**
 * The value of variable `name` in `/proc/<pid>/environ`, or null when it is not set. The file is
 * the environment the process was started with (a later `setenv` does not change it); reading it
 * needs the same user or root, and an unreadable or vanished process reads as null.
 */
export const environValue = (pid: number, name: string): string | null => {
  let text: string
  try {
    text = fs.readFileSync(`/proc/${pid}/environ`, "latin1")
  } catch {
    return null
  }
  const prefix = `${name}=`
  const at = text.startsWith(prefix) ? 0 : text.indexOf(`\0${prefix}`)
  if (at < 0) return null
  const start = at === 0 ? prefix.length : at + 1 + prefix.length
  const end = text.indexOf("\0", start)
  return text.slice(start, end < 0 ? text.length : end)
}
