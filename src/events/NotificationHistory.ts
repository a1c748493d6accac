/**
 * The daemon's memory of its recent notifications (docs/architecture.md §9): the last
 * `HISTORY_CAPACITY` alerts raised and the last `HISTORY_CAPACITY` webhook deliveries, each in a
 * ring buffer, for `GET /api/alerts`, `GET /api/webhooks/deliveries` and the dashboard's System
 * panel. In memory only: a daemon restart starts with an empty history (docs/decisions.md).
 *
 * Alerts are read off the bus — the same `Alert` events the WebSocket forwards — so the history
 * holds what a client connected all along would have seen; `Webhooks` reports each delivery's
 * outcome through `recordDelivery`. URLs are redacted on the way in (`redactUrl`): nothing
 * readable here, by a read-only key or in the dashboard, holds a webhook's credentials.
 */
import { Effect, Queue } from "effect"
import { type AlertRecord, HISTORY_CAPACITY, type WebhookDeliveryRecord } from "../domain/NotificationRecords"
import { EventBus } from "./EventBus"
import type { PmfxEvent } from "./PmfxEvent"
import { redactUrl } from "./redactUrl"

/** A fixed-size ring: adding to a full one overwrites the oldest entry. */
class Ring<A> {
  private readonly slots: Array<A> = []
  private next = 0
  /** Entries ever added (also those overwritten since). */
  recorded = 0

  constructor(private readonly capacity: number) {}

  add(entry: A): void {
    this.slots[this.next] = entry
    this.next = (this.next + 1) % this.capacity
    this.recorded++
  }

  /** Up to `limit` entries, newest first. */
  newest(limit: number): Array<A> {
    const out: Array<A> = []
    const count = Math.min(limit, this.slots.length)
    for (let i = 1; i <= count; i++) out.push(this.slots[(this.next - i + this.capacity) % this.capacity]!)
    return out
  }
}

/** A delivery as `Webhooks` reports it: `target` is the configured URL as is (redacted here). */
export type DeliveryReport = Omit<WebhookDeliveryRecord, "url"> & { readonly target: string }

export interface HistoryPage<A> {
  /** How many entries the daemon keeps. */
  readonly capacity: number
  /** Entries recorded since the daemon started (older ones than `capacity` are gone). */
  readonly recorded: number
  /** Newest first. */
  readonly entries: ReadonlyArray<A>
}

const alertRecord = (event: Extract<PmfxEvent, { _tag: "Alert" }>): AlertRecord => ({
  kind: event.kind,
  process: { id: event.id, name: event.name, instance: event.instance },
  message: event.message,
  data: event.data,
  timestamp: event.timestamp
})

export class NotificationHistory extends Effect.Service<NotificationHistory>()("pmfx/NotificationHistory", {
  scoped: Effect.gen(function* () {
    const bus = yield* EventBus
    const alerts = new Ring<AlertRecord>(HISTORY_CAPACITY)
    const deliveries = new Ring<WebhookDeliveryRecord>(HISTORY_CAPACITY)

    // Subscribed before the constructor returns: no alert published once the layer is built is missed.
    const events = yield* bus.subscribe()
    yield* Queue.take(events).pipe(
      Effect.map((event) => {
        if (event._tag === "Alert") alerts.add(alertRecord(event))
      }),
      Effect.forever,
      Effect.forkScoped
    )

    const page = <A>(ring: Ring<A>, limit: number): HistoryPage<A> => ({
      capacity: HISTORY_CAPACITY,
      recorded: ring.recorded,
      entries: ring.newest(limit)
    })

    return {
      /** The last `limit` alerts (at most `HISTORY_CAPACITY`), newest first. */
      alerts: (limit: number = HISTORY_CAPACITY) => Effect.sync(() => page(alerts, limit)),
      /** The last `limit` webhook deliveries (at most `HISTORY_CAPACITY`), newest first. */
      deliveries: (limit: number = HISTORY_CAPACITY) => Effect.sync(() => page(deliveries, limit)),
      /** Keeps one delivery's outcome, its URL redacted. */
      recordDelivery: ({ target, ...report }: DeliveryReport) =>
        Effect.sync(() => deliveries.add({ ...report, url: redactUrl(target) }))
    }
  })
}) {}
