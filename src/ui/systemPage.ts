/**
 * The System panel: host CPU, memory, load and the disk holding the logs (live `system_metrics`),
 * the daemon's version, uptime and memory (`GET /api/system`), the recent alerts (the daemon's
 * history, `GET /api/alerts`, merged with the feed's `alert` messages) and the recent webhook
 * deliveries (`GET /api/webhooks/deliveries`, read again after each alert and every 30 s). The
 * daemon's uptime ticks every second from its start time, written as `pmfx list` writes uptimes.
 */
import { type AlertHistoryRecord, api, type DeliveryHistoryRecord, type SystemRecord } from "./api"
import { bytes, h, replaceChildren } from "./dom"
import { onMessage, state } from "./live"
import { alertItems, deliveryItems, type HistoryState, mergeAlerts } from "./notificationHistory"
import { formatShortUptime, uptimeSeconds } from "../shared/uptime"

/** After an alert, when to read the deliveries again: a failing target is retried for a few seconds. */
const DELIVERY_RECHECKS_MS = [1_000, 5_000] as const

/**
 * How far the browser's clock is ahead of the daemon's, from one `/api/system` answer: its uptime
 * text (to the second) against `started_at`. Within 2 s the clocks agree and the start time is used
 * as it is; a browser on another machine with a wrong clock still counts from the right uptime.
 */
const clockSkewMs = (info: SystemRecord): number => {
  const skew = Date.now() - Date.parse(info.daemon.started_at) - uptimeSeconds(info.daemon.uptime) * 1000
  return Number.isFinite(skew) && Math.abs(skew) > 2_000 ? skew : 0
}

const meter = (label: string, percent: number, detail: string) =>
  h(
    "div",
    { class: "card" },
    h("h3", {}, label),
    h("meter", { min: 0, max: 100, value: percent, "aria-label": label }),
    h("p", { class: "big" }, `${percent.toFixed(1)}%`),
    h("p", {}, detail)
  )

export const renderSystemPage = (root: HTMLElement): (() => void) => {
  const host = h("div", { class: "cards", id: "host" })
  const daemon = h("div", { class: "cards", id: "daemon" })
  // aria-busy until the daemon's history has been read (the feed's alerts show meanwhile).
  const alerts = h("ol", { class: "alerts", id: "alerts", "aria-busy": "true" })
  const deliveries = h("ol", { class: "deliveries", id: "deliveries", "aria-busy": "true" })
  let info: SystemRecord | null = null
  let skewMs = 0
  const uptime = h("p", { class: "big", id: "daemon-uptime" })
  const showUptime = () => {
    if (info !== null) uptime.textContent = formatShortUptime(Date.now() - skewMs - Date.parse(info.daemon.started_at))
  }
  let alertHistory: AlertHistoryRecord["alerts"] = []
  let deliveryHistory: DeliveryHistoryRecord["deliveries"] = []
  let alertState: HistoryState = "reading"
  let deliveryState: HistoryState = "reading"
  replaceChildren(
    root,
    h("h1", {}, "System"),
    host,
    h("h2", {}, "Daemon"),
    daemon,
    h("h2", {}, "Recent alerts"),
    alerts,
    h("h2", {}, "Webhook deliveries"),
    deliveries
  )

  const draw = () => {
    const stats = state.system
    replaceChildren(
      host,
      ...(stats === null
        ? [h("p", {}, "Waiting for the first sample…")]
        : [
            meter(
              "CPU",
              stats.cpu.usage_percent,
              `${stats.cpu.cores} cores · load ${stats.cpu.load_average.map((l) => l.toFixed(2)).join(" ")}`
            ),
            meter("Memory", stats.memory.usage_percent, `${bytes(stats.memory.used)} of ${bytes(stats.memory.total)}`),
            meter(
              "Disk (logs)",
              stats.disk.usage_percent,
              `${bytes(stats.disk.available)} free of ${bytes(stats.disk.total)} · ${stats.disk.path}`
            )
          ])
    )
    replaceChildren(
      daemon,
      ...(info === null
        ? []
        : [
            h(
              "div",
              { class: "card" },
              h("h3", {}, "pmfx"),
              h("p", { class: "big" }, info.version),
              h("p", {}, `${info.hostname} · Node ${info.node_version}`)
            ),
            h("div", { class: "card" }, h("h3", {}, "Uptime"), uptime, h("p", {}, `since ${info.daemon.started_at}`)),
            h(
              "div",
              { class: "card" },
              h("h3", {}, "Daemon memory"),
              h("p", { class: "big" }, bytes(info.daemon.rss)),
              h("p", {}, `pid ${info.daemon.pid}`)
            )
          ])
    )
    showUptime()
    replaceChildren(alerts, ...alertItems(mergeAlerts(alertHistory, state.alerts), alertState))
    replaceChildren(deliveries, ...deliveryItems(deliveryHistory, deliveryState))
  }
  const problem = (what: string, error: unknown): HistoryState => ({
    problem: `Could not read the ${what}: ${error instanceof Error ? error.message : String(error)}`
  })
  /** Draws, then clears `list`'s aria-busy: the list shows the history once it is no longer busy. */
  const drawn = (list: HTMLElement) => {
    draw()
    list.removeAttribute("aria-busy")
  }
  const loadAlerts = () =>
    api.alerts().then(
      (answer) => {
        alertHistory = answer.alerts
        alertState = "read"
        drawn(alerts)
      },
      (error: unknown) => {
        alertState = problem("alert history", error)
        drawn(alerts)
      }
    )
  const loadDeliveries = () =>
    api.deliveries().then(
      (answer) => {
        deliveryHistory = answer.deliveries
        deliveryState = "read"
        drawn(deliveries)
      },
      (error: unknown) => {
        deliveryState = problem("webhook deliveries", error)
        drawn(deliveries)
      }
    )
  const rechecks = new Set<ReturnType<typeof setTimeout>>()
  const refresh = () =>
    api.system().then(
      (answer) => {
        info = answer
        skewMs = clockSkewMs(answer)
        draw()
      },
      () => undefined
    )
  void refresh()
  void loadAlerts()
  void loadDeliveries()
  const timer = setInterval(() => {
    void refresh()
    void loadDeliveries()
  }, 30_000)
  const ticker = setInterval(showUptime, 1_000)
  draw()
  const stop = onMessage((message) => {
    if (message.type === "system_metrics" || message.type === "alert") draw()
    if (message.type === "alert") {
      // The alert's webhooks are being delivered now: show their outcome when it is known.
      for (const delay of DELIVERY_RECHECKS_MS) {
        const recheck = setTimeout(() => {
          rechecks.delete(recheck)
          void loadDeliveries()
        }, delay)
        rechecks.add(recheck)
      }
    }
  })
  return () => {
    stop()
    clearInterval(timer)
    clearInterval(ticker)
    for (const recheck of rechecks) clearTimeout(recheck)
  }
}
