/**
 * The memory breakdown of `GET /api/processes/{id}/metrics` (docs/api.md), summed over a row's tree.
 * Read on request only, so it may afford `/proc/<pid>/status`, a larger file than `stat`.
 */
import { Effect } from "effect"
import * as fs from "node:fs"

/** Bytes, summed over the pids. */
export interface MemoryDetail {
  /** Resident set size (`VmRSS`). */
  readonly rss: number
  /** Virtual memory size (`VmSize`). */
  readonly vms: number
  /** Data + stack segments (`VmData`). */
  readonly data: number
  /** Swapped-out memory (`VmSwap`). */
  readonly swap: number
  /** Resident shared memory (`RssShmem`). */
  readonly shared: number
}

const fieldOf: ReadonlyMap<string, keyof MemoryDetail> = new Map([
  ["VmRSS", "rss"],
  ["VmSize", "vms"],
  ["VmData", "data"],
  ["VmSwap", "swap"],
  ["RssShmem", "shared"]
])

const LINE = /^(\w+):\s+(\d+) kB$/gm

/** Adds the `kB` lines of one `/proc/<pid>/status` text to `total`. */
const addStatusMemory = (status: string, total: Record<keyof MemoryDetail, number>): void => {
  for (const [, name = "", kilobytes] of status.matchAll(LINE)) {
    const field = fieldOf.get(name)
    if (field !== undefined) total[field] += Number(kilobytes) * 1024
  }
}

const readStatus = (pid: number): string | undefined => {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, "latin1")
  } catch {
    return undefined
  }
}

/**
 * Sums the memory fields of each pid's `/proc/<pid>/status`; pids that have exited are skipped (a
 * zombie has no memory lines, so it adds nothing either).
 */
export const readMemoryDetail = (pids: ReadonlyArray<number>): Effect.Effect<MemoryDetail> =>
  Effect.sync(() => {
    const total = { rss: 0, vms: 0, data: 0, swap: 0, shared: 0 }
    for (const pid of pids) {
      const status = readStatus(pid)
      if (status !== undefined) addStatusMemory(status, total)
    }
    return total
  })
