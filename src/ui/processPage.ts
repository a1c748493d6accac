/**
 * One process: its details (config, environment as `pmfx env` masks it, ports, health check, last
 * exit), CPU and memory over the last 15 minutes (`metrics?history=15m`, then live samples), its
 * action buttons and its logs.
 */
import { actionButtons, statusElement } from "./actions"
import { api } from "./api"
import { type Point, CHART_WINDOW_MS, lineChart } from "./chart"
import { bytes, h, replaceChildren } from "./dom"
import { onMessage, state } from "./live"
import { renderLogs } from "./logs"
import { cpuText, healthText, memoryText, uptimeText } from "./rowText"

const pair = (label: string, value: string | number | null | undefined) => [
  h("dt", {}, label),
  h("dd", {}, value === null || value === undefined || value === "" ? "–" : String(value))
]

export const renderProcessPage = (root: HTMLElement, id: number): (() => void) => {
  const title = h("h1", {}, `Process ${id}`)
  const summary = h("dl", { class: "facts", id: "summary" })
  const config = h("dl", { class: "facts", id: "config" })
  const env = h("table", { class: "env", id: "env" })
  const envSummary = h("summary", {}, "Environment")
  const cpuChart = h("figure", { class: "chart-box", id: "cpu-chart" })
  const memoryChart = h("figure", { class: "chart-box", id: "memory-chart" })
  const logs = h("section", { class: "logs", "aria-label": "Logs" })
  const cpu: Array<Point> = []
  const memory: Array<Point> = []
  let name = String(id)
  let stopLogs: (() => void) | null = null

  replaceChildren(
    root,
    h("p", {}, h("a", { href: "#/" }, "← All processes")),
    title,
    h(
      "div",
      { class: "toolbar" },
      actionButtons(() => [id], false)
    ),
    statusElement(),
    h(
      "div",
      { class: "columns" },
      h("section", {}, h("h2", {}, "Now"), summary),
      h("section", {}, h("h2", {}, "Configuration"), config)
    ),
    h("div", { class: "columns" }, cpuChart, memoryChart),
    h("section", { id: "env-section" }, h("details", { id: "env-box" }, envSummary, env)),
    h("h2", {}, "Logs"),
    logs
  )

  const drawCharts = () => {
    const now = Date.now()
    while (cpu.length > 0 && cpu[0]!.t < now - CHART_WINDOW_MS) cpu.shift()
    while (memory.length > 0 && memory[0]!.t < now - CHART_WINDOW_MS) memory.shift()
    replaceChildren(
      cpuChart,
      h("figcaption", {}, "CPU (% of one core)"),
      lineChart("CPU", cpu, (v) => `${v.toFixed(0)}%`, 10, now)
    )
    replaceChildren(
      memoryChart,
      h("figcaption", {}, "Memory (RSS)"),
      lineChart("Memory", memory, bytes, 1024 * 1024, now)
    )
  }

  const drawSummary = () => {
    const row = state.rows.get(id)
    if (row === undefined) {
      replaceChildren(summary, ...pair("Status", "deleted"))
      return
    }
    replaceChildren(
      summary,
      ...pair("Status", row.status),
      ...pair("PID", row.pid),
      ...pair("Port", row.port),
      ...pair("CPU", cpuText(row)),
      ...pair("Memory", memoryText(row)),
      ...pair("Uptime", uptimeText(row)),
      ...pair("Restarts", row.restarts),
      ...pair("Health", healthText(row)),
      ...(row.exit_code !== undefined || row.signal !== undefined
        ? pair("Last exit (live)", `code ${row.exit_code ?? "–"}, signal ${row.signal ?? "–"}`)
        : [])
    )
    summary.querySelector("dd:nth-of-type(1)")?.classList.add(`status-${row.status}`)
  }

  const loadDetail = async () => {
    try {
      const [detail, environment, metrics] = await Promise.all([api.detail(id), api.env(id), api.metrics(id)])
      name = detail.name
      title.textContent = `${detail.name}${detail.config.instances > 1 ? ` #${detail.instance}` : ""} (id ${id})`
      document.title = `${detail.name} · pmfx`
      const health = detail.health_check
      replaceChildren(
        config,
        ...pair("Namespace", detail.namespace),
        ...pair("Script", detail.config.script),
        ...pair("Arguments", detail.config.args.join(" ")),
        ...pair("Directory", detail.config.cwd),
        ...pair(
          "Mode",
          `${detail.config.exec_mode}, ${detail.config.instances} instance${detail.config.instances === 1 ? "" : "s"}`
        ),
        ...pair("Port setting", detail.config.port),
        ...pair(
          "Memory limit",
          detail.config.max_memory_restart === null ? null : bytes(detail.config.max_memory_restart)
        ),
        ...pair(
          "Health check",
          health.enabled
            ? `${health.check_type ?? ""} ${health.url ?? ""}: ${health.status ?? "unknown"}${health.response_time === null ? "" : ` in ${health.response_time} ms`}${health.last_check === null ? "" : ` at ${health.last_check}`}`
            : "none"
        ),
        ...pair(
          "Last exit",
          detail.last_exit === null
            ? "none yet"
            : `code ${detail.last_exit.code ?? "–"}, signal ${detail.last_exit.signal ?? "–"}`
        ),
        ...pair(
          "Cron restart",
          detail.cron_restart === null ? null : `${detail.cron_restart.schedule} (next ${detail.cron_restart.next_run})`
        )
      )
      const keys = Object.keys(environment.env).sort()
      envSummary.textContent = `Environment: ${keys.length} variable${keys.length === 1 ? "" : "s"}, ${environment.masked.length} masked`
      replaceChildren(
        env,
        h(
          "caption",
          {},
          `${environment.source === "process" ? "The running process's environment" : "What its next start gets"}; ${state.readOnly ? "every value is masked for the read-only key" : "secret-looking values are masked"}`
        ),
        ...keys.map((key) => h("tr", {}, h("th", { scope: "row" }, key), h("td", {}, environment.env[key] ?? "")))
      )
      // Live samples may have arrived while the history was on its way: merge by time, once each.
      const seen = new Set(cpu.map((p) => p.t))
      for (const point of metrics.history) {
        const t = Date.parse(point.timestamp)
        if (seen.has(t)) continue
        cpu.push({ t, v: point.cpu_usage })
        memory.push({ t, v: point.rss })
      }
      cpu.sort((a, b) => a.t - b.t)
      memory.sort((a, b) => a.t - b.t)
      drawCharts()
      stopLogs ??= renderLogs(logs, id, name)
    } catch (error) {
      replaceChildren(
        config,
        h(
          "p",
          { class: "error" },
          `Could not load process ${id}: ${error instanceof Error ? error.message : String(error)}`
        )
      )
    }
  }

  drawSummary()
  drawCharts()
  void loadDetail()
  const stop = onMessage((message) => {
    if (message.type === "process_metrics") {
      const sample = message.data.processes.find((p) => p.id === id)
      if (sample !== undefined) {
        const t = Date.parse(message.timestamp)
        cpu.push({ t, v: sample.cpu_usage })
        memory.push({ t, v: sample.memory_usage })
      }
      drawCharts()
    }
    if (message.type === "process_metrics" || message.type === "process_status" || message.type === "process_list")
      drawSummary()
  })
  return () => {
    stop()
    stopLogs?.()
  }
}
