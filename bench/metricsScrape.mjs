// GET /metrics with 100 processes: how long a scrape takes and what it costs the daemon
// (docs/metrics.md, "Scraping must not make the daemon busy").
//
// One daemon with 100 idle Node processes (10 apps × 10 instances, online and settled). Then:
//  1. latency: SCRAPES scrapes one after the other on one kept-alive connection (as Prometheus
//     does): median, p90 and max time to the whole body, and the body's size;
//  2. CPU per scrape: the daemon's CPU time (utime + stime from /proc/<pid>/stat) during those
//     back-to-back scrapes, minus what it uses idle over the same time, divided by the count;
//     (and, for comparison, the same for GET /api/processes, the request behind pmfx list);
//  3. CPU at a steady rate: the daemon's CPU over WINDOW_S seconds with one scrape per second,
//     against WINDOW_S seconds without scrapes (metrics are sampled every second either way).
import * as http from "node:http"
import * as L from "./lib.mjs"

const WINDOW_S = Number(process.env.BENCH_SCRAPE_WINDOW_S ?? 20)
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 300)
const APPS = 10
const INSTANCES = 10
const BUDGET_PERCENT = 1

const cpuSeconds = (pid) => L.cpuTicks(pid) / L.CLK_TCK

L.log(`metricsScrape: GET /metrics with ${APPS * INSTANCES} processes; load average ${L.loadAverage()}`)

await L.withDaemon("scrape", async (home) => {
  const pid = L.startDaemon(home)
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
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

  // 1 and 2: back to back.
  const first = await L.api(home, "GET", "/metrics", undefined, agent)
  if (first.status !== 200) throw new Error(`GET /metrics: ${first.status} ${first.text}`)
  const series = first.text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length
  const times = []
  const c0 = cpuSeconds(pid)
  const t0 = L.now()
  for (let i = 0; i < SCRAPES; i++) {
    const started = L.now()
    const reply = await L.api(home, "GET", "/metrics", undefined, agent)
    if (reply.status !== 200) throw new Error(`GET /metrics: ${reply.status}`)
    times.push(L.now() - started)
  }
  const busyWall = (L.now() - t0) / 1000
  const busyCpu = cpuSeconds(pid) - c0
  // The idle CPU over as long, to subtract the sampler's own cost.
  const i0 = cpuSeconds(pid)
  await L.sleep(busyWall * 1000)
  const idleCpu = cpuSeconds(pid) - i0
  const perScrapeMs = ((busyCpu - idleCpu) / SCRAPES) * 1000
  L.log(`  ${rows.length} processes, ${series} series, ${(first.text.length / 1024).toFixed(1)} KiB per scrape`)
  L.log(
    `  ${SCRAPES} scrapes back to back: median ${L.fmt(L.median(times), 2)} ms, p90 ${L.fmt(L.percentile(times, 90), 2)} ms, max ${L.fmt(Math.max(...times), 2)} ms`
  )
  L.log(
    `  daemon CPU ${L.fmt(busyCpu, 2)} s in ${L.fmt(busyWall, 2)} s of scrapes (idle over as long: ${L.fmt(idleCpu, 2)} s): ${L.fmt(perScrapeMs, 2)} ms of CPU per scrape`
  )

  // For comparison: the same number of GET /api/processes (pmfx list's request) back to back.
  const listTimes = []
  const l0 = cpuSeconds(pid)
  for (let i = 0; i < SCRAPES; i++) {
    const started = L.now()
    await L.api(home, "GET", "/api/processes", undefined, agent)
    listTimes.push(L.now() - started)
  }
  const listPerRequestMs = ((cpuSeconds(pid) - l0 - idleCpu) / SCRAPES) * 1000
  L.log(
    `  for comparison, ${SCRAPES} GET /api/processes: median ${L.fmt(L.median(listTimes), 2)} ms, ~${L.fmt(listPerRequestMs, 2)} ms of CPU each`
  )

  // 3: one scrape per second against none.
  const q0 = cpuSeconds(pid)
  await L.sleep(WINDOW_S * 1000)
  const quiet = ((cpuSeconds(pid) - q0) / WINDOW_S) * 100
  const s0 = cpuSeconds(pid)
  const w0 = L.now()
  while (L.now() - w0 < WINDOW_S * 1000) {
    const next = L.now() + 1000
    await L.api(home, "GET", "/metrics", undefined, agent)
    await L.sleep(Math.max(0, next - L.now()))
  }
  const scraped = ((cpuSeconds(pid) - s0) / ((L.now() - w0) / 1000)) * 100
  agent.destroy()
  const cost = scraped - quiet
  L.log(
    `  daemon CPU: ${L.fmt(quiet, 2)}% of one core without scrapes, ${L.fmt(scraped, 2)}% with one scrape per second (${WINDOW_S} s windows)`
  )
  L.report(
    "GET /metrics of 100 processes once a second: < 1% of one core",
    `${L.fmt(cost, 2)}% of one core; a scrape: median ${L.fmt(L.median(times), 2)} ms, ${L.fmt(perScrapeMs, 2)} ms of daemon CPU`,
    cost < BUDGET_PERCENT ? "PASS" : "FAIL",
    `${series} series, ${(first.text.length / 1024).toFixed(1)} KiB; load average ${L.loadAverage()}`
  )
})
