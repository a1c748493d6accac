/** Webhook receivers and the alert services' layers for the events tests. */
import { Effect, Layer } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Alerts } from "../../src/events/Alerts"
import type { PmfxEvent } from "../../src/events/PmfxEvent"
import { WebhookDelivery, type WebhookDeliverySettings, Webhooks } from "../../src/events/Webhooks"

export interface Receiver {
  readonly url: string
  readonly bodies: Array<any>
  /** Connections accepted (a hanging receiver counts attempts here). */
  readonly connections: () => number
}

/**
 * A local HTTP server on a random port for the life of the scope. `hang: true` accepts requests
 * and never answers.
 */
export const receiver = (options: { readonly hang?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.async<{ server: http.Server; receiver: Receiver }>((resume) => {
      const bodies: Array<any> = []
      let connections = 0
      const server = http.createServer((request, response) => {
        if (options.hang === true) return
        let text = ""
        request.setEncoding("utf8")
        request.on("data", (chunk) => (text += chunk))
        request.on("end", () => {
          bodies.push({ method: request.method, contentType: request.headers["content-type"], ...JSON.parse(text) })
          response.writeHead(204).end()
        })
      })
      server.on("connection", () => connections++)
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, receiver: { url: `http://127.0.0.1:${port}/hook`, bodies, connections: () => connections } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ receiver }) => receiver))

/** A port nothing listens on (bound, then released). */
export const closedPort = Effect.async<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Alerts and Webhooks over the engine's bus (provide inside `withEngine`). */
export const notifications = (delivery: Partial<WebhookDeliverySettings> = {}) =>
  Layer.merge(Alerts.Default, Webhooks.Default).pipe(
    Layer.provide(Layer.succeed(WebhookDelivery, { ...WebhookDelivery.defaultValue(), ...delivery }))
  )

export type AlertEvent = Extract<PmfxEvent, { _tag: "Alert" }>
export const alertsOf = (events: ReadonlyArray<PmfxEvent>, kind?: AlertEvent["kind"]) =>
  events.filter((event): event is AlertEvent & { at: number } => event._tag === "Alert" && (kind === undefined || event.kind === kind))
