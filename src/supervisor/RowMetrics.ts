/**
 * A row's figures from the sampling loop: its process tree's CPU and memory at the last sample, and
 * the history of the samples (docs/architecture.md §4 Metrics).
 *
 * They are kept beside the row's state, not in its SubscriptionRef: the loop writes them for every
 * live row at each sample, and a write through the SubscriptionRef (its lock, its `changes` hub)
 * made 100 watched rows cost the daemon ~2 % of a core where a plain write costs ~0.3 %
 * (docs/decisions.md, "A row's figures beside its state"). Nothing waits on a change of figures:
 * what waits on a row waits on its status, pid or health, which stay in the state.
 */
import type { RowState } from "./Row"

export interface MetricsPoint {
  readonly timestamp: string
  readonly cpu_usage: number
  readonly rss: number
}

/** Written by the sampling loop only (metricsSampling.ts); read through {@link currentFigures}. */
export interface RowMetrics {
  /** The process the figures were read for; null before the first sample. */
  pid: number | null
  cpu: number
  memory: number
  /** One point per sample of the row, across its restarts, at most HISTORY_LENGTH. */
  history: ReadonlyArray<MetricsPoint>
}

export const makeRowMetrics = (): RowMetrics => ({ pid: null, cpu: 0, memory: 0, history: [] })

export interface Figures {
  readonly cpu: number
  readonly memory: number
}

const NO_FIGURES: Figures = { cpu: 0, memory: 0 }

/**
 * The figures of the row's current process: none (0 and 0) while it has no live process, and for a
 * new process until its first sample — the last sample was of a process that is gone.
 */
export const currentFigures = (metrics: RowMetrics, state: RowState): Figures =>
  state.pid !== null && metrics.pid === state.pid ? metrics : NO_FIGURES
