/**
 * The System panel: host CPU, memory, load and the disk holding the logs (live `system_metrics`),
 * the daemon's version, uptime and memory (`GET /api/system`), and the alerts seen since the page
 * opened (the API keeps no alert history; webhook deliveries are not exposed by it).
 */
import { api, type SystemRecord } from "./api"
import { bytes, h, replaceChildren } from "./dom"
import { onMessage, state } from "./live"

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
  const alerts = h("ol", { class: "alerts", id: "alerts" })
  let info: SystemRecord | null = null
  replaceChildren(
    root,
    h("h1", {}, "System"),
    host,
    h("h2", {}, "Daemon"),
    daemon,
    h("h2", {}, "Recent alerts"),
    alerts
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
            h(
              "div",
              { class: "card" },
              h("h3", {}, "Uptime"),
              h("p", { class: "big" }, info.daemon.uptime),
              h("p", {}, `since ${info.daemon.started_at}`)
            ),
            h(
              "div",
              { class: "card" },
              h("h3", {}, "Daemon memory"),
              h("p", { class: "big" }, bytes(info.daemon.rss)),
              h("p", {}, `pid ${info.daemon.pid}`)
            )
          ])
    )
    replaceChildren(
      alerts,
      ...(state.alerts.length === 0
        ? [h("li", { class: "empty" }, "No alert since this page opened.")]
        : state.alerts.map((alert) =>
            h(
              "li",
              { class: `alert alert-${alert.kind}` },
              h("time", {}, alert.timestamp),
              " ",
              h("strong", {}, alert.kind),
              " ",
              alert.message
            )
          ))
    )
  }
  const refresh = () =>
    api.system().then(
      (answer) => {
        info = answer
        draw()
      },
      () => undefined
    )
  void refresh()
  const timer = setInterval(() => void refresh(), 30_000)
  draw()
  const stop = onMessage((message) => {
    if (message.type === "system_metrics" || message.type === "alert") draw()
  })
  return () => {
    stop()
    clearInterval(timer)
  }
}
