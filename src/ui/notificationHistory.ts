/**
 * The System panel's two lists (docs/dashboard.md): the recent alerts — the daemon's history
 * (`GET /api/alerts`) merged with those the feed brought since — and the recent webhook deliveries
 * (`GET /api/webhooks/deliveries`), each with its outcome and the URL as the daemon redacted it.
 */
import type { AlertHistoryRecord, DeliveryHistoryRecord } from "./api"
import { h } from "./dom"
import type { Alert } from "./live"

type ShownAlert = Pick<AlertHistoryRecord["alerts"][number], "kind" | "process" | "message" | "timestamp">
type Delivery = DeliveryHistoryRecord["deliveries"][number]

/** How many alerts the list shows (the daemon keeps as many). */
const SHOWN = 100

/** The same alert from the history and from the feed: same time, kind, row and message. */
const alertKey = (alert: ShownAlert): string => `${alert.timestamp}|${alert.kind}|${alert.process.id}|${alert.message}`

/** The history and the live alerts as one list, newest first, each alert once. */
export const mergeAlerts = (
  history: ReadonlyArray<ShownAlert>,
  live: ReadonlyArray<Alert>
): ReadonlyArray<ShownAlert> => {
  const byKey = new Map<string, ShownAlert>()
  for (const alert of [...live, ...history]) {
    const key = alertKey(alert)
    if (!byKey.has(key)) byKey.set(key, alert)
  }
  // ISO 8601 times in UTC sort as text.
  return [...byKey.values()]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, SHOWN)
}

/**
 * Where a list's history stands: still being read, read, or not readable (why). The empty line
 * says "none since the daemon started" only once the history has been read.
 */
export type HistoryState = "reading" | "read" | { readonly problem: string }

const notice = (state: HistoryState, none: string) =>
  state === "reading"
    ? [h("li", { class: "empty" }, "Reading the daemon's history…")]
    : state === "read"
      ? [h("li", { class: "empty" }, none)]
      : []

const problemLine = (state: HistoryState) =>
  typeof state === "object" ? [h("li", { class: "empty problem" }, state.problem)] : []

export const alertItems = (alerts: ReadonlyArray<ShownAlert>, state: HistoryState) => [
  ...problemLine(state),
  ...(alerts.length === 0
    ? notice(state, "No alert since the daemon started.")
    : alerts.map((alert) =>
        h(
          "li",
          { class: `alert alert-${alert.kind}` },
          h("time", { datetime: alert.timestamp }, alert.timestamp),
          " ",
          h("strong", {}, alert.kind),
          " ",
          alert.message
        )
      ))
]

const took = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)

/** What became of a delivery, in a few words: `HTTP 204`, `failed: HTTP 500`, `dropped: …`. */
const outcomeText = (delivery: Delivery): string => {
  if (delivery.outcome === "delivered") return `delivered (HTTP ${delivery.status ?? "?"})`
  return `${delivery.outcome}: ${delivery.error ?? (delivery.status === null ? "no answer" : `HTTP ${delivery.status}`)}`
}

export const deliveryItems = (deliveries: ReadonlyArray<Delivery>, state: HistoryState) => [
  ...problemLine(state),
  ...(deliveries.length === 0
    ? notice(state, "No webhook delivery since the daemon started.")
    : deliveries.map((delivery) =>
        h(
          "li",
          { class: `delivery delivery-${delivery.outcome === "delivered" ? "ok" : "failed"}` },
          h("time", { datetime: delivery.timestamp }, delivery.timestamp),
          " ",
          h("strong", { class: "outcome" }, outcomeText(delivery)),
          " ",
          `${delivery.event} of ${delivery.process.name} (id ${delivery.process.id}) to `,
          h("code", { class: "url" }, delivery.url),
          " ",
          h(
            "span",
            { class: "meta" },
            `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}, ${took(delivery.duration_ms)}`
          )
        )
      ))
]
