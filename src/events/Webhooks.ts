/**
 * Webhook delivery (docs/architecture.md §9). Every `Alert` on the bus whose kind an enabled webhook lists is
 * POSTed to its url as `{event, process: {id, name}, data, timestamp}`.
 *
 * Delivery never touches supervision: the bus reader only drops jobs into a bounded queue (a
 * full queue drops the job and logs it), and a fixed number of worker fibers send them, each
 * attempt with a timeout (5 s) and at most 3 retries with backoff (200, 400, 800 ms). A 2xx
 * answer is success; 5xx, 408 and 429 are retried, any other answer (a redirect, which is not
 * followed, or a 4xx) is not.
 *
 * Each delivery's outcome (status or error, attempts, duration) goes to `NotificationHistory`,
 * which redacts the URL, for `GET /api/webhooks/deliveries` and the dashboard; the log's warnings
 * name the redacted URL too (`redactUrl`).
 *
 * The list is the daemon's, not a file's: an ecosystem file's top-level `webhooks` is merged in
 * by url (`mergeWebhooks`), so starting a second file adds its endpoints instead of silencing the
 * first file's (docs/decisions.md). `changes` tells the daemon's StateStore to save the list.
 */
import { Clock, Context, Duration, Effect, Queue, Stream, SubscriptionRef } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import type { Webhook } from "../domain/AppDefinition"
import type { WebhookDeliveryRecord } from "../domain/NotificationRecords"
import { EventBus } from "./EventBus"
import { NotificationHistory } from "./NotificationHistory"
import type { AlertKind, PmfxEvent } from "./PmfxEvent"
import { redactUrl } from "./redactUrl"

export interface WebhookDeliverySettings {
  readonly timeoutMs: number
  readonly retryDelaysMs: ReadonlyArray<number>
  readonly concurrency: number
  readonly queueCapacity: number
}

/** Delivery tuning; the defaults are docs/architecture.md §9's (tests shorten the timeout). */
export class WebhookDelivery extends Context.Reference<WebhookDelivery>()("pmfx/WebhookDelivery", {
  defaultValue: (): WebhookDeliverySettings => ({
    timeoutMs: 5_000,
    retryDelaysMs: [200, 400, 800],
    concurrency: 4,
    queueCapacity: 1_000
  })
}) {}

export interface WebhookStats {
  /** Deliveries that got a 2xx answer. */
  delivered: number
  /** Deliveries given up after the last attempt. */
  failed: number
  /** Deliveries dropped because the queue was full. */
  dropped: number
  /** Individual HTTP attempts (including retries). */
  attempts: number
}

export interface WebhookBody {
  readonly event: string
  readonly process: { readonly id: number; readonly name: string }
  readonly data: Readonly<Record<string, unknown>>
  readonly timestamp: string
}

interface Job {
  readonly url: string
  readonly body: string
  readonly event: AlertKind
  readonly process: WebhookBody["process"]
}

class DeliveryFailed {
  readonly _tag = "DeliveryFailed"
  constructor(
    readonly reason: string,
    readonly retryable: boolean,
    /** The answer's HTTP status, null when none came. */
    readonly status: number | null = null
  ) {}
}

/** One POST; succeeds with the status of a 2xx answer. Interrupting it destroys the request. */
const post = (url: string, body: string, timeoutMs: number): Effect.Effect<number, DeliveryFailed> =>
  Effect.async<number, DeliveryFailed>((resume) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      // Without the url: the reason is kept in the delivery history, and the url may hold a secret.
      resume(Effect.fail(new DeliveryFailed("not a valid URL", false)))
      return
    }
    const client = target.protocol === "https:" ? https : http
    let done = false
    const finish = (effect: Effect.Effect<number, DeliveryFailed>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(effect)
    }
    const request = client.request(target, {
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "pmfx-webhook"
      }
    })
    const timer = setTimeout(() => {
      finish(Effect.fail(new DeliveryFailed(`no answer within ${timeoutMs} ms`, true)))
      request.destroy()
    }, timeoutMs)
    request.on("response", (response) => {
      response.resume()
      const status = response.statusCode ?? 0
      if (status >= 200 && status < 300) finish(Effect.succeed(status))
      else
        finish(
          Effect.fail(
            new DeliveryFailed(
              `HTTP ${status}`,
              // A redirect is not followed, and sending the same POST again would not change it.
              status >= 500 || status === 408 || status === 429,
              status
            )
          )
        )
      request.destroy()
    })
    request.on("error", (error) => finish(Effect.fail(new DeliveryFailed(error.message, true))))
    request.end(body)
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      request.destroy()
    })
  })

/**
 * `current` with `incoming` merged in by url: an entry whose url is already listed replaces it in
 * place (so `enabled` and `events` can be changed), a new url is appended, the rest stay.
 */
export const mergeByUrl = (
  current: ReadonlyArray<Webhook>,
  incoming: ReadonlyArray<Webhook>
): ReadonlyArray<Webhook> => {
  const byUrl = new Map(current.map((hook) => [hook.url, hook]))
  for (const hook of incoming) byUrl.set(hook.url, hook)
  return [...byUrl.values()]
}

export const webhookBody = (alert: Extract<PmfxEvent, { _tag: "Alert" }>): WebhookBody => ({
  event: alert.kind,
  process: { id: alert.id, name: alert.name },
  data: { message: alert.message, instance: alert.instance, ...alert.data },
  timestamp: alert.timestamp
})

export class Webhooks extends Effect.Service<Webhooks>()("pmfx/Webhooks", {
  scoped: Effect.gen(function* () {
    const bus = yield* EventBus
    const settings = yield* WebhookDelivery
    const history = yield* NotificationHistory
    const hooks = yield* SubscriptionRef.make<ReadonlyArray<Webhook>>([])
    const stats: WebhookStats = { delivered: 0, failed: 0, dropped: 0, attempts: 0 }
    const jobs = yield* Effect.acquireRelease(Queue.dropping<Job>(settings.queueCapacity), Queue.shutdown)

    /** `tries` counts this job's attempts, for its record in the history. */
    const attempt = (job: Job, index: number, tries: { count: number }): Effect.Effect<number, DeliveryFailed> =>
      Effect.suspend(() => {
        stats.attempts++
        tries.count++
        return post(job.url, job.body, settings.timeoutMs)
      }).pipe(
        Effect.catchAll((error) => {
          const delay = settings.retryDelaysMs[index]
          if (!error.retryable || delay === undefined) return Effect.fail(error)
          return Effect.sleep(Duration.millis(delay)).pipe(Effect.zipRight(attempt(job, index + 1, tries)))
        })
      )

    const record = (
      job: Job,
      startedAt: number,
      attempts: number,
      outcome: Pick<WebhookDeliveryRecord, "outcome" | "status" | "error">
    ) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        history.recordDelivery({
          timestamp: new Date(now).toISOString(),
          event: job.event,
          process: job.process,
          target: job.url,
          ...outcome,
          attempts,
          duration_ms: Math.max(0, now - startedAt)
        })
      )

    const deliver = (job: Job) =>
      Effect.gen(function* () {
        const startedAt = yield* Clock.currentTimeMillis
        const tries = { count: 0 }
        yield* attempt(job, 0, tries).pipe(
          Effect.matchEffect({
            onSuccess: (status) =>
              Effect.sync(() => void stats.delivered++).pipe(
                Effect.zipRight(record(job, startedAt, tries.count, { outcome: "delivered", status, error: null }))
              ),
            onFailure: (error) =>
              Effect.sync(() => void stats.failed++).pipe(
                Effect.zipRight(
                  record(job, startedAt, tries.count, { outcome: "failed", status: error.status, error: error.reason })
                ),
                Effect.zipRight(Effect.logWarning(`webhook ${redactUrl(job.url)} failed: ${error.reason}`))
              )
          })
        )
      })

    for (let worker = 0; worker < settings.concurrency; worker++) {
      yield* Queue.take(jobs).pipe(Effect.flatMap(deliver), Effect.forever, Effect.forkScoped)
    }

    const enqueue = (event: PmfxEvent) =>
      Effect.gen(function* () {
        if (event._tag !== "Alert") return
        const matching = (yield* SubscriptionRef.get(hooks)).filter(
          (hook) => hook.enabled && hook.events.includes(event.kind)
        )
        if (matching.length === 0) return
        const payload = webhookBody(event)
        const body = JSON.stringify(payload)
        for (const hook of matching) {
          const job: Job = { url: hook.url, body, event: event.kind, process: payload.process }
          const accepted = yield* Queue.offer(jobs, job)
          if (!accepted) {
            stats.dropped++
            yield* record(job, yield* Clock.currentTimeMillis, 0, {
              outcome: "dropped",
              status: null,
              error: "the delivery queue was full"
            })
            // The first drop and every 100th after it: a crash loop against a dead target must not flood the log.
            if (stats.dropped % 100 === 1)
              yield* Effect.logWarning(
                `webhook queue full: dropped ${event.kind} for ${redactUrl(hook.url)} (${stats.dropped} dropped so far)`
              )
          }
        }
      })

    const events = yield* bus.subscribe()
    yield* Queue.take(events).pipe(
      Effect.flatMap(enqueue),
      Effect.catchAllCause((cause) => Effect.logError("webhook dispatch failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      /** Replaces the configured webhooks. */
      setWebhooks: (list: ReadonlyArray<Webhook>) => SubscriptionRef.set(hooks, [...list]),
      /** Merges `list` into the configured webhooks by url (`mergeByUrl`). */
      mergeWebhooks: (list: ReadonlyArray<Webhook>) =>
        SubscriptionRef.update(hooks, (current) => mergeByUrl(current, list)),
      webhooks: () => SubscriptionRef.get(hooks),
      /** One element per change of the list (not the current value on subscribing). */
      changes: hooks.changes.pipe(Stream.drop(1), Stream.as(undefined)),
      /** Delivery counters (for tests and diagnostics). */
      stats: () => Effect.sync((): WebhookStats => ({ ...stats }))
    }
  })
}) {}
