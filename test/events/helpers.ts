/** Webhook receivers and the alert services' layers for the events tests. */
import { Effect, Layer } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { startWebhookReceiver } from "../support/webhookReceiver"
import { Alerts } from "../../src/events/Alerts"
import { NotificationHistory } from "../../src/events/NotificationHistory"
import type { PmfxEvent } from "../../src/events/PmfxEvent"
import { WebhookDelivery, type WebhookDeliverySettings, Webhooks } from "../../src/events/Webhooks"

/** A webhook receiver for the life of the scope (see `startWebhookReceiver`). */
export const receiver = (options: { readonly hang?: boolean; readonly status?: number } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startWebhookReceiver(options)),
    (started) => Effect.promise(() => started.close())
  )

/** A port nothing listens on (bound, then released). */
export const closedPort = Effect.async<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Alerts, Webhooks and the history they feed, over the engine's bus (provide inside `withEngine`). */
export const notifications = (delivery: Partial<WebhookDeliverySettings> = {}) =>
  Layer.merge(Alerts.Default, Webhooks.Default).pipe(
    Layer.provideMerge(NotificationHistory.Default),
    Layer.provide(Layer.succeed(WebhookDelivery, { ...WebhookDelivery.defaultValue(), ...delivery }))
  )

export type AlertEvent = Extract<PmfxEvent, { _tag: "Alert" }>
export const alertsOf = (events: ReadonlyArray<PmfxEvent>, kind?: AlertEvent["kind"]) =>
  events.filter(
    (event): event is AlertEvent & { at: number } =>
      event._tag === "Alert" && (kind === undefined || event.kind === kind)
  )
