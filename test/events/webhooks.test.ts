import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Webhooks } from "../../src/events/Webhooks"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { alertsOf, notifications, receiver } from "./helpers"

describe("webhooks", () => {
  it.live("a crash is POSTed to enabled webhooks that list process_crash, and to no other", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const webhooks = yield* Webhooks
        const target = yield* receiver()
        const disabled = yield* receiver()
        const otherEvents = yield* receiver()
        // The others first: a job for them would be queued (and picked up) before the target's.
        yield* webhooks.setWebhooks([
          { enabled: false, url: disabled.url, events: ["process_crash"] },
          { enabled: true, url: otherEvents.url, events: ["high_memory", "restart_loop"] },
          { enabled: true, url: target.url, events: ["process_crash"] }
        ])
        const apps = yield* definitions([
          { name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "100" }, autorestart: false }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => target.bodies.length === 1),
          "the webhook POST"
        )
        const [body] = target.bodies
        expect(target.requests[0]).toMatchObject({ method: "POST", contentType: "application/json" })
        expect(body).toMatchObject({
          event: "process_crash",
          process: { id: row!.id, name: "crashy" },
          data: { exit_code: 1, signal: null, instance: 0 }
        })
        expect(typeof body.data.message).toBe("string")
        expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false)
        // Nothing in flight any more: every attempt ended, and only the target's was made.
        yield* eventually(
          Effect.map(webhooks.stats(), (s) => s.attempts === s.delivered + s.failed),
          "no delivery in flight"
        )
        const stats = yield* webhooks.stats()
        expect(stats).toMatchObject({ delivered: 1, failed: 0, dropped: 0, attempts: 1 })
        expect(disabled.connections()).toBe(0)
        expect(otherEvents.connections()).toBe(0)
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("a redirect or a 4xx answer is a failed delivery after one attempt; a 500 is retried", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const webhooks = yield* Webhooks
        const redirecting = yield* receiver({ status: 302 })
        const missing = yield* receiver({ status: 404 })
        const broken = yield* receiver({ status: 500 })
        yield* webhooks.setWebhooks(
          [redirecting, missing, broken].map((target) => ({
            enabled: true,
            url: target.url,
            events: ["process_crash" as const]
          }))
        )
        const apps = yield* definitions([
          { name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "100" }, autorestart: false }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(webhooks.stats(), (s) => s.failed === 3 && s.attempts === s.delivered + s.failed + 3),
          "three failed deliveries, the 500's after its three retries"
        )
        expect(redirecting.bodies).toHaveLength(1)
        expect(missing.bodies).toHaveLength(1)
        expect(broken.bodies).toHaveLength(4)
        expect(yield* webhooks.stats()).toMatchObject({ delivered: 0, failed: 3, attempts: 6 })
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("a restart loop is POSTed as restart_loop", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const webhooks = yield* Webhooks
        const target = yield* receiver()
        yield* webhooks.setWebhooks([{ enabled: true, url: target.url, events: ["restart_loop"] }])
        const apps = yield* definitions([
          {
            name: "looper",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "30" },
            max_restarts: 100,
            alerts: { restart_loop: { restarts: 3, window: "1m" } }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.sync(() => target.bodies.length >= 1),
          "the restart_loop POST"
        )
        expect(target.bodies[0]).toMatchObject({
          event: "restart_loop",
          process: { name: "looper" },
          data: { threshold: 3 }
        })
        expect(target.bodies.every((b) => b.event === "restart_loop")).toBe(true)
        yield* pm.stop("looper")
      }).pipe(Effect.provide(notifications()))
    )
  )

  it.live("a receiver that never answers does not slow a crash loop; its deliveries time out and are retried", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const webhooks = yield* Webhooks
        const events = yield* recordEvents()
        const deaf = yield* receiver({ hang: true })
        yield* webhooks.setWebhooks([{ enabled: true, url: deaf.url, events: ["process_crash", "restart_loop"] }])
        const apps = yield* definitions([
          // Each run outlasts its min_uptime (20 ms): stable, so no backoff and a steady pace of about one restart per 200 ms.
          {
            name: "looper",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "150" },
            min_uptime: "20ms",
            restart_delay: "50ms"
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const restarts = () => events.filter((e) => e._tag === "ProcessRestart" && e.name === "looper").length
        // Each delivery blocks a worker for at least 4 attempts x 2 s + 1.4 s of backoff; the loop goes on meanwhile.
        yield* eventually(
          Effect.sync(() => restarts() >= 6),
          "six restarts while the receiver hangs"
        )
        const restartsBefore = restarts()
        const stats = yield* webhooks.stats()
        expect(stats.failed).toBe(0)
        expect(stats.delivered).toBe(0)
        expect(deaf.connections()).toBeGreaterThanOrEqual(1)
        expect(alertsOf(events, "process_crash").length).toBeGreaterThanOrEqual(6)
        // Deliveries end as failures after the retries; restarts kept climbing meanwhile.
        yield* eventually(
          Effect.map(webhooks.stats(), (s) => s.failed >= 1),
          "a delivery given up",
          45_000
        )
        const after = yield* webhooks.stats()
        expect(after.attempts).toBeGreaterThanOrEqual(4)
        // (Climbing, not a count: how many fit in the retries' ~9 s depends on the machine's speed.)
        expect(restarts()).toBeGreaterThan(restartsBefore)
        // The normal pace held throughout: no gap between restarts as long as one delivery attempt
        // (2 s), which a loop waiting on the receiver would show; a loaded machine's Node start
        // keeps the normal gap well under it.
        const times = events.filter((e) => e._tag === "ProcessRestart" && e.name === "looper").map((e) => e.at)
        const gaps = times.slice(1).map((t, i) => t - times[i]!)
        expect(Math.max(...gaps)).toBeLessThan(2_000)
        yield* pm.stop("looper")
      }).pipe(Effect.provide(notifications({ timeoutMs: 2_000 })))
    )
  )

  it.live("a full delivery queue drops jobs instead of growing", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const webhooks = yield* Webhooks
        const deaf = yield* receiver({ hang: true })
        yield* webhooks.setWebhooks([{ enabled: true, url: deaf.url, events: ["process_crash"] }])
        const apps = yield* definitions([
          {
            name: "looper",
            script: fixture("crash-after.js"),
            env: { CRASH_AFTER_MS: "30" },
            max_restarts: 1000,
            restart_delay: "50ms"
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(webhooks.stats(), (s) => s.dropped >= 1),
          "a dropped delivery"
        )
        yield* pm.stop("looper")
      }).pipe(Effect.provide(notifications({ timeoutMs: 5_000, concurrency: 1, queueCapacity: 2 })))
    )
  )
})
