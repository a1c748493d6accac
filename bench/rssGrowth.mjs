// The daemon's RSS as its app count grows from 10 to 60 (issue 16: flat within 5 %), on its own
// (the side-by-side run, `--vs pm2`, measures it next to PM2 from ecosystem files).
//
// One daemon (started by `pmfx ping`, as users' are). 10 idle `sleep` apps, SETTLE_MS of
// settling, RSS (VmRSS, the median of 5 readings 200 ms apart); 50 more, the same. How the apps
// arrive is the argument:
//   node bench/rssGrowth.mjs            one `POST /api/processes` per app, as `pmfx start` does
//                                       one app at a time
//   node bench/rssGrowth.mjs --file     one ecosystem file of 10, then one of 50 (`pmfx start <file>`)
// Two daemons started alike differ by 1–2 MB: compare builds by alternating runs.
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"

const SETTLE_MS = 8000
const fromFile = process.argv.includes("--file")

const rss = L.medianRssMb

const idleApp = (name) => ({ name, script: "sleep", args: ["100000"] })

/** Adds apps `from`..`to - 1`, named app-<i>, the way the argument chose. */
const addApps = async (home, from, to) => {
  const apps = Array.from({ length: to - from }, (_, k) => idleApp(`app-${from + k}`))
  if (!fromFile) {
    for (const app of apps) await L.createApp(home, app)
    return
  }
  const file = path.join(home, `apps-${from}.config.js`)
  fs.writeFileSync(file, `module.exports = ${JSON.stringify({ apps })}\n`)
  const r = L.cli(home, ["start", file])
  if (r.status !== 0) throw new Error(`pmfx start ${file} exited ${r.status}: ${r.stderr || r.stdout}`)
}

L.log(
  `rssGrowth: 10, then 60 idle apps (${fromFile ? "from ecosystem files" : "one request each"}); load average ${L.loadAverage()}`
)

await L.withDaemon("rss-growth", async (home) => {
  const pid = L.startDaemon(home)
  await addApps(home, 0, 10)
  await L.sleep(SETTLE_MS)
  const at10 = await rss(pid)
  await addApps(home, 10, 60)
  await L.sleep(SETTLE_MS)
  const at60 = await rss(pid)
  const growth = (at60 / at10 - 1) * 100
  L.log(`  RSS: 10 apps ${L.fmt(at10)} MB, 60 apps ${L.fmt(at60)} MB, +${L.fmt(at60 - at10)} MB (${L.fmt(growth)} %)`)
  L.report("RSS flat within 5 % from 10 to 60 apps", `+${L.fmt(growth)} %`, growth <= 5 ? "PASS" : "FAIL")
})
