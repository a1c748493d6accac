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

/** A fixed-size ring of points, oldest overwritten first. */
class Ring {
  private readonly points: Array<HistoryPoint | undefined> = new Array(HISTORY_CAPACITY)
  private next = 0
  private size = 0
  push(point: HistoryPoint): void {
    this.points[this.next] = point
    this.next = (this.next + 1) % HISTORY_CAPACITY
    this.size = Math.min(this.size + 1, HISTORY_CAPACITY)
  }
  newest(): HistoryPoint | undefined {
    return this.size === 0 ? undefined : this.points[(this.next - 1 + HISTORY_CAPACITY) % HISTORY_CAPACITY]
  }
  /** The points newer than `sinceMs`, oldest first. */
  since(sinceMs: number): Array<HistoryPoint> {
    const out: Array<HistoryPoint> = []
    for (let i = 0; i < this.size; i++) {
      const point = this.points[(this.next - this.size + i + HISTORY_CAPACITY) % HISTORY_CAPACITY]!
      if (Date.parse(point.timestamp) >= sinceMs) out.push(point)
    }
    return out
  }
}

export const makeMetricsHistory = () => {
  const rings = new Map<number, Ring>()
  const record = (sample: {
    readonly timestamp: string
    readonly processes: ReadonlyArray<{
      readonly id: number
      readonly cpu_usage: number
      readonly memory_usage: number
    }>
  }): void => {
    for (const row of sample.processes) {
      let ring = rings.get(row.id)
      if (ring === undefined) rings.set(row.id, (ring = new Ring()))
      ring.push({ timestamp: sample.timestamp, cpu_usage: row.cpu_usage, rss: row.memory_usage })
    }
    const oldest = Date.parse(sample.timestamp) - HISTORY_WINDOW_MS
    for (const [id, ring] of rings) {
      const newest = ring.newest()
      if (newest === undefined || Date.parse(newest.timestamp) < oldest) rings.delete(id)
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
