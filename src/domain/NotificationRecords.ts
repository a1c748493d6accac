/**
 * What the daemon remembers of its recent notifications (events/NotificationHistory.ts, docs/api.md
 * "Alert and webhook history"): each alert raised, and each webhook delivery's outcome. The API
 * answers these records as they are; the dashboard's System panel reads them.
 */
import { Schema } from "effect"
import { WebhookEvent } from "./AppDefinition"

/** How many alerts, and how many deliveries, the daemon keeps (the oldest go first). */
export const HISTORY_CAPACITY = 100

/** One alert as the `/ws` `alert` message carries it, with its time. */
export const AlertRecord = Schema.Struct({
  kind: WebhookEvent,
  process: Schema.Struct({ id: Schema.Int, name: Schema.String, instance: Schema.Int }),
  message: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  /** When the alert was raised (ISO 8601, UTC). */
  timestamp: Schema.String
})
export type AlertRecord = typeof AlertRecord.Type

/**
 * `delivered`: a 2xx answer; `failed`: given up after the last attempt (or at once, for an answer
 * that is not worth retrying); `dropped`: never sent, because the delivery queue was full.
 */
export const DeliveryOutcome = Schema.Literal("delivered", "failed", "dropped")
export type DeliveryOutcome = typeof DeliveryOutcome.Type

/** One webhook delivery: one alert to one URL, with all its attempts. */
export const WebhookDeliveryRecord = Schema.Struct({
  /** When the delivery ended (ISO 8601, UTC). */
  timestamp: Schema.String,
  /** The alert kind delivered (the body's `event`). */
  event: WebhookEvent,
  process: Schema.Struct({ id: Schema.Int, name: Schema.String }),
  /** The target with its user, password, query and token-like path segments replaced by `***`. */
  url: Schema.String,
  outcome: DeliveryOutcome,
  /** The HTTP status of the last answer, or null when none came (refused, timed out, dropped). */
  status: Schema.NullOr(Schema.Int),
  /** Why the last attempt failed (`HTTP 500`, `connect ECONNREFUSED …`), null when delivered. */
  error: Schema.NullOr(Schema.String),
  /** HTTP attempts made (0 when dropped). */
  attempts: Schema.Int,
  /** From the first attempt to the outcome, retries' waits included, in milliseconds. */
  duration_ms: Schema.Int
})
export type WebhookDeliveryRecord = typeof WebhookDeliveryRecord.Type
