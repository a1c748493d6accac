/**
 * The daemon's own figures for `GET /metrics` (docs/metrics.md), read at scrape time only: nothing
 * here runs between scrapes, so an idle daemon stays idle.
 *
 * - CPU: `process.cpuUsage()` (user + system seconds since the daemon started), a counter.
 * - RSS: `process.memoryUsage.rss()` (one syscall, no heap walk).
 * - Event loop: `performance.eventLoopUtilization()` reads libuv's own idle/active totals (no timer
 *   of ours), so its `active` time is a counter whose rate is the fraction of time the loop was
 *   busy between two scrapes. The lag is a probe taken at the scrape: the time a `setImmediate`
 *   scheduled by the scrape waits for the loop to get through what is queued before it. A
 *   permanent `monitorEventLoopDelay` histogram would keep a timer firing every 10 ms for a figure
 *   nobody may read; the probe costs one callback per scrape.
 */
import { Effect } from "effect"
import { performance } from "node:perf_hooks"

export interface DaemonSelf {
  readonly cpuSeconds: number
  readonly residentBytes: number
  readonly loopActiveSeconds: number
  readonly loopLagSeconds: number
  readonly startTimeSeconds: number
}

/** Seconds until a `setImmediate` queued now runs. */
const lagProbe: Effect.Effect<number> = Effect.async<number>((resume) => {
  const started = performance.now()
  const handle = setImmediate(() => resume(Effect.succeed((performance.now() - started) / 1000)))
  return Effect.sync(() => clearImmediate(handle))
})

export const readDaemonSelf = (startedAtMs: number): Effect.Effect<DaemonSelf> =>
  Effect.map(lagProbe, (loopLagSeconds) => {
    const cpu = process.cpuUsage()
    return {
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      residentBytes: process.memoryUsage.rss(),
      loopActiveSeconds: performance.eventLoopUtilization().active / 1000,
      loopLagSeconds,
      startTimeSeconds: startedAtMs / 1000
    }
  })
