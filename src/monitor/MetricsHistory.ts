/**
 * The last 15 minutes of each row's CPU and memory, for the dashboard's charts and
 * `GET /api/processes/{id}/metrics?history=15m` (docs/api.md). Fed only by the `MetricsSample`
 * events of the EventBus, whatever their rate (the sampler publishes them even when nobody
 * watches, slower then): a ring buffer per row keeps the samples of the last `HISTORY_WINDOW_MS`,
 * at most `HISTORY_CAPACITY` of them (15 min at one per second), so memory stays bounded.
 * A sample lists only the rows with a process running; a row (stopped or deleted) whose newest point
 * is older than the window loses its buffer at the next sample.
 */
import { Effect, Queue } from "effect"
import { EventBus } from "../events/EventBus"

export const HISTORY_WINDOW_MS = 15 * 60_000
export const HISTORY_CAPACITY = 900

export interface HistoryPoint {
  readonly timestamp: string
  readonly cpu_usage: number
  readonly rss: number
}

/** The numbers kept per point: its time (ms since the epoch), CPU percent and RSS bytes. */
const STRIDE = 3
const FIRST_SIZE = 16

/**
 * A ring of points, oldest overwritten first, kept as plain numbers: 24 bytes a point instead of
 * an object with a timestamp string (~100), and grown by doubling up to `HISTORY_CAPACITY`, so a
 * row sampled every 10 s holds its 90 points, not 900 empty slots (docs/benchmarks.md, "The
 * daemon's memory, fifth pass"). Until it is full at `HISTORY_CAPACITY` it never wraps, so growing
 * copies one straight run.
 */
class HistoryRing {
  private data = new Float64Array(FIRST_SIZE * STRIDE)
  private next = 0
  private size = 0
  private get slots(): number {
    return this.data.length / STRIDE
  }
  push(timeMs: number, cpu: number, rss: number): void {
    if (this.size === this.slots && this.slots < HISTORY_CAPACITY) {
      const grown = new Float64Array(Math.min(this.slots * 2, HISTORY_CAPACITY) * STRIDE)
      grown.set(this.data)
      this.data = grown
      this.next = this.size
    }
    const at = this.next * STRIDE
    this.data[at] = timeMs
    this.data[at + 1] = cpu
    this.data[at + 2] = rss
    this.next = (this.next + 1) % this.slots
    this.size = Math.min(this.size + 1, this.slots)
  }
  /** The newest point's time, or undefined when empty. */
  newestTime(): number | undefined {
    return this.size === 0 ? undefined : this.data[((this.next - 1 + this.slots) % this.slots) * STRIDE]
  }
  /** The points at or after `sinceMs`, oldest first. */
  since(sinceMs: number): Array<HistoryPoint> {
    const out: Array<HistoryPoint> = []
    for (let i = 0; i < this.size; i++) {
      const at = ((this.next - this.size + i + this.slots) % this.slots) * STRIDE
      const time = this.data[at]!
      if (time >= sinceMs)
        out.push({ timestamp: new Date(time).toISOString(), cpu_usage: this.data[at + 1]!, rss: this.data[at + 2]! })
    }
    return out
  }
}

export const makeMetricsHistory = () => {
  const rings = new Map<number, HistoryRing>()
  const record = (sample: {
    readonly timestamp: string
    readonly processes: ReadonlyArray<{
      readonly id: number
      readonly cpu_usage: number
      readonly memory_usage: number
    }>
  }): void => {
    const time = Date.parse(sample.timestamp)
    for (const row of sample.processes) {
      let ring = rings.get(row.id)
      if (ring === undefined) rings.set(row.id, (ring = new HistoryRing()))
      ring.push(time, row.cpu_usage, row.memory_usage)
    }
    const oldest = time - HISTORY_WINDOW_MS
    for (const [id, ring] of rings) {
      const newest = ring.newestTime()
      if (newest === undefined || newest < oldest) rings.delete(id)
    }
  }
  /** The row's points of the last `windowMs` (at most the 15-minute window), oldest first. */
  const history = (id: number, windowMs: number, now: number = Date.now()): ReadonlyArray<HistoryPoint> =>
    rings.get(id)?.since(now - Math.min(windowMs, HISTORY_WINDOW_MS)) ?? []
  return { record, history }
}

export class MetricsHistory extends Effect.Service<MetricsHistory>()("pmfx/MetricsHistory", {
  scoped: Effect.gen(function* () {
    const bus = yield* EventBus
    const store = makeMetricsHistory()
    const events = yield* bus.subscribe()
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(Queue.take(events), (event) =>
          Effect.sync(() => (event._tag === "MetricsSample" ? store.record(event) : undefined))
        )
      )
    )
    return { history: (id: number, windowMs: number) => Effect.sync(() => store.history(id, windowMs)) }
  })
}) {}
