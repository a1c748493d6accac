/**
 * The periodic metrics sample (docs/architecture.md §4): every live row's process tree is read
 * (MetricsSampler), its CPU, memory and recent history recorded on the row (beside its state:
 * ./RowMetrics.ts), the memory limit
 * applied, and one `MetricsSample` event published for all rows. When sampling happens is
 * decided here only; consumers of the numbers subscribe to the event.
 */
import { Clock, Effect, SubscriptionRef } from "effect"
import type { EventBus } from "../events/EventBus"
import type { MetricsSampler } from "../monitor/MetricsSampler"
import { needsSteadySampling, type SamplingDemandShape } from "../monitor/SamplingDemand"
import { enforceMemoryLimit } from "./memoryLimitPolicy"
import { refreshFromSample } from "./ProcessFamily"
import type { ProcessTable } from "./processTable"
import type { Row } from "./Row"

/** Points of history a row keeps (one per sample). */
export const HISTORY_LENGTH = 60

/** The history with `point` last, at most HISTORY_LENGTH long: one new array per row and sample. */
export const appendPoint = <P>(history: ReadonlyArray<P>, point: P): Array<P> => {
  const kept = history.length >= HISTORY_LENGTH ? history.slice(history.length - HISTORY_LENGTH + 1) : history.slice()
  kept.push(point)
  return kept
}

export interface SamplingDeps {
  readonly table: ProcessTable
  readonly sampler: MetricsSampler
  readonly bus: EventBus
}

/** One sample of every live row's process tree: metrics, history, memory limit. */
export const sampleOnce = ({ table, sampler, bus }: SamplingDeps) =>
  Effect.gen(function* () {
    const live: Array<{ row: Row; pid: number }> = []
    for (const row of table.allRows()) {
      const state = yield* SubscriptionRef.get(row.state)
      if (state.pid !== null) live.push({ row, pid: state.pid })
    }
    const metrics = yield* sampler.sample(live.map(({ row, pid }) => ({ key: row.id, pid })))
    const now = yield* Clock.currentTimeMillis
    const timestamp = new Date(now).toISOString()
    const reported: Array<{
      id: number
      name: string
      instance: number
      pid: number | null
      cpu_usage: number
      memory_usage: number
    }> = []
    for (const { row, pid } of live) {
      const sample = metrics.get(row.id)
      if (sample === undefined) continue
      table.lastPids.set(row.id, sample.pids)
      const family = row.family
      if (family !== undefined && family.leader === pid) {
        yield* refreshFromSample(
          family,
          sample.pids.map((p, i) => [p, sample.startTimes[i]!] as const)
        )
      }
      const next = yield* SubscriptionRef.get(row.state)
      // The row stopped or moved on to another process while /proc was read: this sample is stale.
      if (next.pid !== pid) continue
      // Beside the state, not through it (./RowMetrics.ts): nothing waits on figures.
      const figures = row.metrics
      figures.pid = pid
      figures.cpu = sample.cpu_usage
      figures.memory = sample.memory_usage
      figures.history = appendPoint(figures.history, {
        timestamp,
        cpu_usage: sample.cpu_usage,
        rss: sample.memory_usage
      })
      reported.push({
        id: row.id,
        name: row.app.definition.name,
        instance: row.instance,
        pid,
        cpu_usage: sample.cpu_usage,
        memory_usage: sample.memory_usage
      })
      yield* enforceMemoryLimit(row, next, pid, sample.memory_usage, bus)
    }
    yield* bus.publish({ _tag: "MetricsSample", timestamp, processes: reported })
  })

/**
 * Samples for as long as the caller's scope lives, at the rate SamplingDemand asks for: fast while
 * someone watches or an app needs steady sampling (a memory limit, a metric alert), slow otherwise
 * (docs/architecture.md §4); a failed sample is logged and the next one runs.
 */
export const runMetricsSampling = (deps: SamplingDeps, demand: SamplingDemandShape) =>
  Effect.forkScoped(
    Effect.forever(
      sampleOnce(deps).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("metrics sample failed", cause)),
        Effect.zipRight(demand.sampled),
        Effect.zipRight(
          Effect.suspend(() =>
            demand.waitForNext(deps.table.allRows().some((row) => needsSteadySampling(row.app.definition)))
          )
        )
      )
    )
  )
