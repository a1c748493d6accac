// A soak of the daemon's memory (docs/benchmarks.md, "The daemon's memory, third pass"):
//   node bench/daemonSoak.mjs [restarts] [lines]      (defaults 10,000 and 1,000,000)
// 10 idle Node apps and one `sleep` app; RSS settled (median of 5 readings, file-backed and
// anonymous from smaps_rollup); then `restarts` restarts of the `sleep` app over the API, one after
// the other; then one child writing `lines` log lines; RSS after each, and after 20 s of idling.
// Not part of `npm run bench` (10,000 restarts take ~25 minutes on a loaded 2-core machine).
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"

const RESTARTS = Number(process.argv[2] ?? 10_000)
const LINES = Number(process.argv[3] ?? 1_000_000)

const rss = async (pid) => {
  const xs = []
  for (let i = 0; i < 5; i++) {
    xs.push(L.vmRssKb(pid))
    await L.sleep(200)
  }
  return `${L.fmt(L.mb(L.median(xs)))} MB`
}
const parts = (pid) => {
  const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8")
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)[1])
  return `file-backed ${L.fmt(L.mb(kb("Rss") - kb("Anonymous")))}, anonymous ${L.fmt(L.mb(kb("Anonymous")))}`
}

await L.withDaemon("soak", async (home) => {
  const pid = L.startDaemon(home)
  for (let i = 0; i < 10; i++) await L.createApp(home, { name: `idle-${i}`, script: L.NODE, args: L.IDLE_ARGS })
  await L.createApp(home, { name: "restarter", script: "/bin/sleep", args: ["100000"], min_uptime: "100ms" })
  await L.waitOnline(home, 11)
  await L.sleep(10_000)
  L.log(`load average ${L.loadAverage()}; settled: RSS ${await rss(pid)} (${parts(pid)})`)

  const t0 = Date.now()
  let failed = 0
  for (let i = 0; i < RESTARTS; i++) {
    const r = await L.api(home, "POST", "/api/processes/restarter/restart")
    if (r.status !== 200) failed++
  }
  const row = (await L.api(home, "GET", "/api/processes/restarter")).json
  L.log(
    `${RESTARTS} restarts in ${L.fmt((Date.now() - t0) / 1000, 0)} s (${failed} failed; restarts ${row.restarts}, ${row.status}): RSS ${await rss(pid)}`
  )

  const logger = path.join(home, "logger.js")
  fs.writeFileSync(
    logger,
    `const n = Number(process.argv[2]); const pad = "y".repeat(60); for (let i = 0; i < n; i++) process.stdout.write("line " + i + " " + pad + "\\n")\n`
  )
  await L.createApp(home, { name: "logger", script: L.NODE, args: [logger, String(LINES)], autorestart: false })
  const count = L.lineCounter((await L.api(home, "GET", "/api/processes/logger")).json.logs.out_file)
  await L.waitFor(`${LINES} lines stored`, async () => count() >= LINES, 600_000, 200)
  L.log(`${LINES} log lines stored (${count()}): RSS ${await rss(pid)} (${parts(pid)})`)
  await L.sleep(20_000)
  L.log(`20 s later: RSS ${await rss(pid)} (${parts(pid)})`)
})
