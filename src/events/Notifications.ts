/**
 * The daemon-wide notification settings — webhooks (Webhooks.ts) and global alert thresholds
 * (Alerts.ts) — as one service that StateStore, the API and `--config` depend on
 * (docs/architecture.md §9). `Notifications.Live` is backed by the real Alerts and Webhooks
 * services (which watch the bus for as long as the layer lives); `Notifications.none` is the no-op
 * a host without notifications provides: it holds no settings, delivers nothing, and accepts
 * settings without keeping them. The dependency is visible in every layer's type, instead of an
 * optional service found (or not) at run time.
 */
import { Context, Effect, Layer, Stream } from "effect"
import type { AlertRules, Webhook } from "../domain/AppDefinition"
import { Alerts } from "./Alerts"
import { Webhooks } from "./Webhooks"

export interface NotificationsShape {
  /** Whether settings are kept and acted upon (false for `Notifications.none`). */
  readonly active: boolean
  readonly webhooks: () => Effect.Effect<ReadonlyArray<Webhook>>
  /** Replaces the configured webhooks. */
  readonly setWebhooks: (list: ReadonlyArray<Webhook>) => Effect.Effect<void>
  /** Merges `list` into the configured webhooks by url. */
  readonly mergeWebhooks: (list: ReadonlyArray<Webhook>) => Effect.Effect<void>
  readonly globalRules: () => Effect.Effect<AlertRules>
  /** Replaces the global alert thresholds (null: none). */
  readonly setGlobalRules: (rules: AlertRules | null) => Effect.Effect<void>
  /** One element per change of either setting (for StateStore to save them). */
  readonly changes: Stream.Stream<void>
}

export class Notifications extends Context.Tag("pmfx/Notifications")<Notifications, NotificationsShape>() {
  /** Alerts and webhook delivery, watching the bus for the layer's life. */
  static readonly Live: Layer.Layer<
    Notifications | Alerts | Webhooks,
    never,
    Layer.Layer.Context<typeof Alerts.Default> | Layer.Layer.Context<typeof Webhooks.Default>
  > = Layer.effect(
    Notifications,
    Effect.gen(function* () {
      const alerts = yield* Alerts
      const webhooks = yield* Webhooks
      return {
        active: true,
        webhooks: webhooks.webhooks,
        setWebhooks: webhooks.setWebhooks,
        mergeWebhooks: webhooks.mergeWebhooks,
        globalRules: alerts.globalRules,
        setGlobalRules: alerts.setGlobalRules,
        changes: Stream.merge(alerts.changes, webhooks.changes)
      }
    })
  ).pipe(Layer.provideMerge(Layer.merge(Alerts.Default, Webhooks.Default)))

  /** No notifications: nothing is kept, nothing is delivered. */
  static readonly none: Layer.Layer<Notifications> = Layer.succeed(Notifications, {
    active: false,
    webhooks: () => Effect.succeed([]),
    setWebhooks: () => Effect.void,
    mergeWebhooks: () => Effect.void,
    globalRules: () => Effect.succeed({}),
    setGlobalRules: () => Effect.void,
    changes: Stream.empty
  })
}
