/**
 * V8's optimizing compilers in the daemon: off while it idles, on once it has heavy byte work.
 *
 * The daemon starts with `--no-turbofan --no-sparkplug` (daemonNodeFlags.ts). The Effect runtime
 * of a daemon starting its apps is hot enough for TurboFan to compile it within a second, and the
 * compilers' own machine code (pages of the `node` binary) and their compile memory then stay
 * resident for the daemon's whole life: ~8 MB of an idle daemon's ~66 MB, for code that runs a
 * few times a minute (docs/benchmarks.md, "The daemon's memory, third pass"). Interpreted, that
 * code costs nothing measurable; the log path does not: 300,000 lines take ~2.7x as long.
 *
 * So the first time the daemon does work per line on many bytes in a short time (a log read scans
 * a large file; a child floods a log whose lines take a path with JS per line: JSON records, a
 * listener that wants them decoded, no timestamp), both compilers are switched on with
 * `v8.setFlagsFromString` for the rest of the daemon's life; V8 reads these flags at each tiering
 * decision, so the hot functions are optimized within milliseconds. A daemon that never sees such
 * traffic never pays for them. A flood of plain text lines does not count: `stampLines` stamps
 * them with native code, as fast interpreted as with TurboFan, and a daemon that switched the
 * compilers on for it kept ~4 MB more resident after the flood for good (docs/benchmarks.md, "The
 * log path, a third pass").
 *
 * Never switched on while the build records the daemon's code cache (PMFX_WRITE_CODE_CACHE): V8
 * stamps the cache with the flags of the moment, and a cache stamped with other flags than the
 * daemon starts with would be rejected at every start (docs/decisions.md).
 */
import * as v8 from "node:v8"

/** Bytes within one window that count as heavy work (~900 log lines of 75 bytes; one full pipe read). */
const HEAVY_BYTES = 64 * 1024
const WINDOW_MS = 1_000

/** Whether this process started with the compilers off (only the daemon does; tests and the library do not). */
const startedWithoutThem = process.execArgv.includes("--no-turbofan")
let on = !startedWithoutThem || process.env.PMFX_WRITE_CODE_CACHE === "1"
let windowStart = 0
let windowBytes = 0

/** Switches TurboFan and Sparkplug on for the rest of the process's life (once). */
export const enableOptimizingCompilers = (): void => {
  if (on) return
  on = true
  v8.setFlagsFromString("--sparkplug")
  v8.setFlagsFromString("--turbofan")
}

/** Whether the optimizing compilers are on (always, outside a daemon started with them off). */
export const optimizingCompilersOn = (): boolean => on

/**
 * Counts bytes the daemon just worked through line by line (a chunk of a child's output, a block
 * of a log file read); past HEAVY_BYTES within WINDOW_MS the compilers go on. One comparison once
 * they are.
 */
export const noteHeavyBytes = (bytes: number, now: number): void => {
  if (on) return
  if (now - windowStart > WINDOW_MS) {
    windowStart = now
    windowBytes = 0
  }
  windowBytes += bytes
  if (windowBytes >= HEAVY_BYTES) enableOptimizingCompilers()
}
