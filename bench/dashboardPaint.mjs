// Budget (docs/benchmarks.md, "The dashboard"): the dashboard's first load with 100 processes —
// total compressed transfer ≤ 150 KB, and the first meaningful paint (the table showing all 100
// rows, painted) ≤ 1 s on this machine.
//
// A daemon with 100 idle rows (`sleep`, cheap), its web listener on a free port, and Debian's
// Chromium (apt-get install chromium) driven by playwright-core. Each of the 5 timed loads uses a
// fresh browser context (empty cache), after one warm-up load; the time is the page's own
// performance.now() (from navigation start) at the first animation frame after the 100th row is
// in the table. Transfer is the sum of `transferSize` of the page and its files (headers included).
import * as fs from "node:fs"
import * as net from "node:net"
import { chromium } from "playwright-core"
import * as L from "./lib.mjs"

const ROWS = 100
const LOADS = 5
const PAINT_BUDGET_MS = 1000
const TRANSFER_BUDGET = 150 * 1024
const CHROMIUM = [process.env.PMFX_CHROMIUM, "/usr/bin/chromium"].find((p) => p && fs.existsSync(p))

if (CHROMIUM === undefined) {
  L.log("dashboardPaint: no chromium (apt-get install chromium); skipped")
  L.report("dashboard first load, 100 processes: ≤ 150 KB, paint ≤ 1 s", "not measured: no chromium", "INFO")
  process.exit(0)
}

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

L.log(
  `dashboardPaint: the dashboard with ${ROWS} processes in ${CHROMIUM} (1 warm-up, ${LOADS} timed cold loads); load average ${L.loadAverage()}`
)

await L.withDaemon("dash", async (home) => {
  L.startDaemon(home)
  await L.createApp(home, {
    apps: Array.from({ length: ROWS }, (_, i) => ({
      name: `svc-${String(i).padStart(3, "0")}`,
      namespace: `ns-${i % 5}`,
      script: "/bin/sleep",
      args: ["3600"]
    }))
  })
  await L.waitOnline(home, ROWS)
  const port = await freePort()
  const web = L.cli(home, ["web", "--port", String(port)])
  if (web.status !== 0) throw new Error(`pmfx web failed: ${web.stderr}`)
  const url = `http://localhost:${port}/ui/`

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
  })
  try {
    const load = async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      await page.goto(url)
      await page.waitForFunction(
        (rows) => document.querySelectorAll("#processes tbody tr[data-id]").length >= rows,
        ROWS,
        { timeout: 30_000 }
      )
      const painted = await page.evaluate(
        () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))
      )
      const entries = await page.evaluate(() =>
        [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].map((e) => ({
          name: e.name,
          transfer: e.transferSize
        }))
      )
      const fcp = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN)
      await context.close()
      return { painted, fcp, transfer: entries.reduce((sum, e) => sum + e.transfer, 0), files: entries.length }
    }
    await load()
    const runs = []
    for (let i = 0; i < LOADS; i++) runs.push(await load())
    const paints = runs.map((r) => r.painted)
    const transfer = Math.max(...runs.map((r) => r.transfer))
    L.log(
      `  table with ${ROWS} rows painted: median ${L.fmt(L.median(paints))} ms, max ${L.fmt(Math.max(...paints))} ms (first contentful paint: median ${L.fmt(L.median(runs.map((r) => r.fcp)))} ms)`
    )
    L.log(`  first load: ${runs[0].files} files, ${L.fmt(transfer / 1024)} KB transferred (gzip, headers included)`)
    L.report(
      "dashboard first load: ≤ 150 KB compressed",
      `${L.fmt(transfer / 1024)} KB in ${runs[0].files} files`,
      transfer <= TRANSFER_BUDGET ? "PASS" : "FAIL"
    )
    L.report(
      "dashboard first meaningful paint, 100 processes: ≤ 1 s",
      `median ${L.fmt(L.median(paints))} ms, max ${L.fmt(Math.max(...paints))} ms`,
      L.median(paints) <= PAINT_BUDGET_MS ? "PASS" : "FAIL"
    )
  } finally {
    await browser.close()
  }
})
