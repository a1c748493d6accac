// Budget (docs/architecture.md §12): metrics for 100 processes each second cost under 2% of one core.
//
// One daemon: its CPU time (utime + stime from /proc/<pid>/stat) over WINDOW_S seconds with no
// app, then over WINDOW_S seconds with 100 idle Node processes (10 apps × 10 instances, started
// and settled beforehand). The difference, as a percentage of one core, is what supervising and
// sampling 100 processes each second costs the daemon. A daemon nobody watches samples every 10 s
// only (docs/architecture.md §4), so a WebSocket client stays connected through both windows, as
// `pmfx monit` or the dashboard would: the daemon then samples every second and sends the client
// each sample (its `process_metrics` messages are counted, to show the pace).
import * as L from "./lib.mjs"

const WINDOW_S = Number(process.env.BENCH_METRICS_WINDOW_S ?? 30)
const APPS = 10
const INSTANCES = 10
const BUDGET_PERCENT = 2

/** Percentage of one core the pid used over the next `seconds`. */
const cpuPercent = async (pid, seconds) => {
  const t0 = L.now()
  const c0 = L.cpuTicks(pid)
  await L.sleep(seconds * 1000)
  const c1 = L.cpuTicks(pid)
  const elapsed = (L.now() - t0) / 1000
  return { percent: ((c1 - c0) / L.CLK_TCK / elapsed) * 100, ticks: c1 - c0, elapsed }
}

L.log(
  `metricsCost: daemon CPU over ${WINDOW_S} s with 0, then ${APPS * INSTANCES} idle processes; load average ${L.loadAverage()}`
)

await L.withDaemon("metrics", async (home) => {
  const pid = L.startDaemon(home)
  let metricsMessages = 0
  const watcher = await L.openWs(home, (message) => {
    if (message.type === "process_metrics") metricsMessages++
  })
  await L.sleep(3000)
  metricsMessages = 0
  const idle = await cpuPercent(pid, WINDOW_S)
  L.log(
    `  0 processes:   ${L.fmt(idle.percent, 2)}% of one core (${idle.ticks} ticks in ${L.fmt(idle.elapsed, 1)} s; ${metricsMessages} process_metrics messages to the watcher)`
  )

  await L.createApp(home, {
    apps: Array.from({ length: APPS }, (_, i) => ({
      name: `idle-${i}`,
      script: L.NODE,
      args: L.IDLE_ARGS,
      instances: INSTANCES
    }))
  })
  const rows = await L.waitOnline(home, APPS * INSTANCES, undefined, 120_000)
  await L.sleep(5000)
  metricsMessages = 0
  const loaded = await cpuPercent(pid, WINDOW_S)
  const paced = metricsMessages
  const alive = (await L.listProcesses(home)).filter((p) => p.status === "online").length
  await L.closeWs(watcher)
  L.log(
    `  ${rows.length} processes: ${L.fmt(loaded.percent, 2)}% of one core (${loaded.ticks} ticks in ${L.fmt(loaded.elapsed, 1)} s; ${paced} process_metrics messages to the watcher); ${alive} still online`
  )
  const cost = loaded.percent - idle.percent
  L.log(`  cost of ${rows.length} processes: ${L.fmt(cost, 2)}% of one core (load average now ${L.loadAverage()})`)
  L.report(
    "Metrics for 100 processes each second: < 2% of one core",
    `${L.fmt(cost, 2)}% of one core (${L.fmt(loaded.percent, 2)}% with 100, ${L.fmt(idle.percent, 2)}% with 0)`,
    cost < BUDGET_PERCENT ? "PASS" : "FAIL",
    `${WINDOW_S} s windows, utime+stime of the daemon`
  )
})
