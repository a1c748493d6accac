/**
 * One full garbage collection once the daemon has been quiet for a moment after a burst of spawns.
 *
 * A burst of work (a file of 50 apps started, a crash loop) grows V8's old generation, and V8
 * gives the pages back only after a full collection run in its memory-reducing mode, which its
 * memory reducer starts only after a full collection that grew the heap. A daemon whose bursts
 * were handled by young-generation collections alone kept ~5 MB of empty heap for good: 28 MB of
 * heap holding 22 MB of objects, 8 s and 30 s after 50 apps started (docs/benchmarks.md, "The
 * daemon's memory, third pass").
 * `gc()` (the daemon runs with `--expose-gc`, daemonNodeFlags.ts) 3 s after the last such spawn
 * gives them back: ~15 ms of one core, at most once per 30 s (DAEMON_SETTLE_TIMINGS), so that an app
 * restarting every few seconds costs at most one collection per half minute.
 *
 * The collection also drops the bytecode of every function not running at that moment
 * (`--stress-flush-code`) and compacts the old generation's pages (`--compact-on-every-full-gc`),
 * both switched on for this one collection. The daemon starts from a code cache holding all it
 * compiled in the build's warm-up (start, logs, restart, stop: docs/architecture.md §12), ~1.5 MB
 * of bytecode an idle daemon mostly never runs again; and a plain collection frees objects inside
 * pages V8 then keeps. What runs afterwards is compiled again on its first call (microseconds per
 * function). Measured together with the daemon's malloc settings (daemonEnvironment.ts): RSS
 * −1.7 MB with 10 idle apps, −3.2 MB with 60 (docs/benchmarks.md, "The daemon's memory, fourth
 * pass"). Never while the build records the code cache (PMFX_WRITE_CODE_CACHE): the cache would
 * lose what the warm-up compiled; nor once the optimizing compilers are on (optimizingCompilers.ts).
 *
 * Outside the daemon (the library, the container runtime started without the flag) there is no
 * `gc` and this does nothing.
 */
import * as v8 from "node:v8"
import { optimizingCompilersOn } from "./optimizingCompilers"

/** V8 flags on for the settling collection only (V8 reads both at each full collection). */
const SETTLING_FLAGS = ["stress-flush-code", "compact-on-every-full-gc"]

/** When the collection runs: `settleMs` after the last spawn, at most once per `minIntervalMs`. */
export interface SettleTimings {
  readonly settleMs: number
  readonly minIntervalMs: number
}

/** The daemon's timings. */
export const DAEMON_SETTLE_TIMINGS: SettleTimings = { settleMs: 3_000, minIntervalMs: 30_000 }

/**
 * A scheduler of its own: `settleMemorySoon` is the daemon's; a test makes one with short timings
 * (test/daemon/daemonJit.test.ts), since the real ones cost half a minute of waiting.
 */
export const makeSettleMemory = (timings: SettleTimings): (() => void) => {
  let timer: NodeJS.Timeout | undefined
  let lastCollection = Number.NEGATIVE_INFINITY

  const collect = (gc: () => void) => (): void => {
    const wait = lastCollection + timings.minIntervalMs - performance.now()
    if (wait > 0) {
      timer = setTimeout(collect(gc), wait)
      timer.unref()
      return
    }
    timer = undefined
    // Once heavy byte work has switched the optimizing compilers on, the daemon keeps its code:
    // dropping it would send the log path back to the interpreter at every burst of spawns.
    const dropCode = process.env.PMFX_WRITE_CODE_CACHE !== "1" && !optimizingCompilersOn()
    if (dropCode) for (const flag of SETTLING_FLAGS) v8.setFlagsFromString(`--${flag}`)
    try {
      // The interval counts from the collection itself (after the flags are set): counted from
      // before them, two collections could be a millisecond or two closer than minIntervalMs.
      lastCollection = performance.now()
      gc()
    } finally {
      if (dropCode) for (const flag of SETTLING_FLAGS) v8.setFlagsFromString(`--no-${flag}`)
    }
  }

  /** Schedules the collection `settleMs` from now (a spawn meanwhile postpones it). */
  return (): void => {
    const gc = (globalThis as { readonly gc?: () => void }).gc
    if (typeof gc !== "function") return
    if (timer !== undefined) {
      timer.refresh()
      return
    }
    timer = setTimeout(collect(gc), timings.settleMs)
    timer.unref()
  }
}

/** Schedules the daemon's collection 3 s from now (a spawn meanwhile postpones it). */
export const settleMemorySoon: () => void = makeSettleMemory(DAEMON_SETTLE_TIMINGS)
