/**
 * CPU and memory of whole process trees (docs/architecture.md §4 Metrics), from one read of the supervised trees per
 * sample (./supervisedTrees.ts: only their processes where the kernel lists children and that is the
 * cheaper reading, else the whole process table). How often the daemon samples is ./SamplingDemand.ts's business.
 *
 * CPU is a rate, so the sampler remembers each pid's CPU ticks from the previous sample:
 * `cpu_usage` = ticks spent by the tree since then / elapsed seconds / CLK_TCK × 100, i.e. percent
 * of ONE core (above 100 on several cores, as in `top`). A pid seen for the first time counts:
 * - all its ticks when it started after the previous sample (every tick it has was spent in the
 *   interval: a wrapper's freshly forked workers are counted at once);
 * - nothing otherwise (its ticks before the previous sample are unknown), e.g. on the first sample
 *   of a tree that was already running, which therefore reads 0.
 * CPU spent by processes that start and exit between two samples is not seen.
 *
 * The sampler is meant for ONE periodic loop that passes every row each time: state is replaced at
 * each call, so pids that disappeared are forgotten and memory stays flat, and a row left out of a
 * call starts over (reads 0) at the next. Other readers should use the loop's latest results.
 */
import { Clock, Effect, type Scope } from "effect"
import { openProcFiles } from "./procFiles"
import { CLK_TCK, type ProcessTable, readUptimeTicks } from "./procfs"
import { descendantsOf } from "./processTree"
import { makeTreeReader } from "./supervisedTrees"

/** A process tree to measure: `pid` is its leader, `key` names it in the result (a row id). */
export interface SampleRoot {
  readonly key: number
  readonly pid: number
}

export interface TreeMetrics {
  /** Percent of one core since the previous sample, one decimal. */
  readonly cpu_usage: number
  /** Summed RSS of the tree, bytes. */
  readonly memory_usage: number
  /** The leader first, then its descendants; empty when the leader has exited. */
  readonly pids: ReadonlyArray<number>
  /** The start time of each of `pids` (same order), to tell a process from a later one with its pid. */
  readonly startTimes: ReadonlyArray<number>
}

export interface MetricsSamplerShape {
  /** Metrics of each root's tree, by root key; every root is in the result. */
  readonly sample: (roots: ReadonlyArray<SampleRoot>) => Effect.Effect<ReadonlyMap<number, TreeMetrics>>
}

/** A pid's CPU ticks at the previous sample; the start time tells a recycled pid from the same process. */
interface PreviousTicks {
  readonly startTime: number
  readonly ticks: number
}

interface PreviousSample {
  readonly atNanos: bigint
  readonly uptimeTicks: number
  readonly ticks: ReadonlyMap<number, PreviousTicks>
}

/**
 * `readTable` reads (at least) the processes of the trees of the given root pids; by default a
 * reader of this sampler's own that learns which reading is cheaper (supervisedTrees.ts). The
 * sampler's `/proc` files stay open between samples (./procFiles.ts) until the scope closes.
 */
export const makeMetricsSampler = (
  readTable?: (roots: ReadonlyArray<number>) => Effect.Effect<ProcessTable>
): Effect.Effect<MetricsSamplerShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const files = yield* openProcFiles()
    const readTrees = readTable ?? makeTreeReader(files).read
    let previous: PreviousSample | undefined
    // Two overlapping calls would compute deltas against each other's state.
    const lock = yield* Effect.makeSemaphore(1)

    const sample = (roots: ReadonlyArray<SampleRoot>) =>
      Effect.gen(function* () {
        const atNanos = yield* Clock.currentTimeNanos
        // Read before the table: a process born after this reading is new in the next interval.
        const uptimeTicks = yield* readUptimeTicks(files.read)
        const table = yield* readTrees(roots.map((root) => root.pid))
        const before = previous
        const elapsedSeconds = before === undefined ? 0 : Number(atNanos - before.atNanos) / 1e9
        const ticks = new Map<number, PreviousTicks>()

        const ticksSincePrevious = (pid: number): number => {
          const stat = table.get(pid)
          if (stat === undefined) return 0
          const now = stat.utime + stat.stime
          ticks.set(pid, { startTime: stat.startTime, ticks: now })
          if (before === undefined) return 0
          const known = before.ticks.get(pid)
          if (known !== undefined && known.startTime === stat.startTime) return Math.max(0, now - known.ticks)
          return stat.startTime >= before.uptimeTicks ? now : 0
        }

        const results = new Map<number, TreeMetrics>()
        for (const root of roots) {
          const pids = descendantsOf(root.pid, table)
          let memory = 0
          let spentTicks = 0
          for (const pid of pids) {
            memory += table.get(pid)?.rss ?? 0
            spentTicks += ticksSincePrevious(pid)
          }
          const cpu = elapsedSeconds > 0 ? (spentTicks / CLK_TCK / elapsedSeconds) * 100 : 0
          const startTimes = pids.map((pid) => table.get(pid)?.startTime ?? 0)
          results.set(root.key, { cpu_usage: Math.round(cpu * 10) / 10, memory_usage: memory, pids, startTimes })
        }
        previous = { atNanos, uptimeTicks, ticks }
        return results
      }).pipe(lock.withPermits(1))

    return { sample }
  })

/** The daemon's sampler (one sampling loop, see above). */
export class MetricsSampler extends Effect.Service<MetricsSampler>()("pmfx/MetricsSampler", {
  scoped: makeMetricsSampler()
}) {}
