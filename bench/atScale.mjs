// pmfx and PM2 7 side by side with many apps (`node bench/atScale.mjs [count]`, default 100): what
// a PM2 user with a big ecosystem file does every day, timed for both managers in one run on the
// same generated apps (idle Node scripts) — `start` of the whole file, `list --json` / `jlist`,
// the table (`list` / `ls`), `restart all` (until every process is online again), `stop all`,
// `delete all` — and each daemon's RSS with the apps running. PM2 is installed on demand as by
// bench/vsPm2.mjs (bench/pm2Harness.mjs) and removed at the end; pmfx runs from dist/ in its own
// home (bench/lib.mjs). The CLI timings alternate between the two managers and take the median.
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"
import { installPm2 } from "./pm2Harness.mjs"

const count = Number(process.argv[2] ?? 100)
if (!Number.isInteger(count) || count < 1) {
  console.error("usage: node bench/atScale.mjs [count of apps, default 100]")
  process.exit(2)
}
const ROUNDS = 5
/** Before each timed action on all apps: the other manager's last action (100 processes exiting or booting) is over. */
const SETTLE_MS = 5_000

let pm2 = null
let pmfxHome = null
const cleanup = async () => {
  if (pm2 !== null) pm2.cleanup()
  if (pmfxHome !== null) await L.cleanup(pmfxHome)
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    cleanup().finally(() => process.exit(130))
  })
}

const main = async () => {
  L.log(`pmfx and PM2 with ${count} apps; load average at the start ${L.loadAverage()}`)
  pm2 = installPm2()
  pmfxHome = L.makeHome("scale")
  const appsDir = path.join(pm2.dir, "apps")
  fs.mkdirSync(appsDir)
  const script = path.join(appsDir, "idle.js")
  fs.writeFileSync(script, "setInterval(() => {}, 60_000)\n")
  const file = path.join(appsDir, "many.config.js")
  const apps = Array.from({ length: count }, (_, i) => ({ name: `app-${i}`, script, autorestart: true }))
  fs.writeFileSync(file, `module.exports = { apps: ${JSON.stringify(apps, null, 2)} }\n`)

  const pmfx = (args) => {
    const r = L.cli(pmfxHome, args, 300_000)
    if (r.status !== 0) throw new Error(`pmfx ${args.join(" ")} exited ${r.status}: ${r.stderr || r.stdout}`)
    return r
  }
  const results = []
  const add = (figure, a, b) => {
    results.push([figure, `${L.fmt(a)} ms`, `${L.fmt(b)} ms`, `${L.fmt(a / b, 2)}x`])
    L.log(`${figure}: pmfx ${L.fmt(a)} ms, PM2 ${L.fmt(b)} ms`)
  }

  L.startDaemon(pmfxHome)
  pm2.must(["ping"])

  const startA = pmfx(["start", file]).ms
  await L.waitOnline(pmfxHome, count, undefined, 300_000)
  await L.sleep(SETTLE_MS)
  const startB = pm2.must(["start", file]).ms
  await pm2.waitOnline(count, "app-", 300_000)
  add(`start ${count} apps from one file`, startA, startB)

  // Alternates which manager goes first; the first round of each is a warm-up.
  const timed = (figure, runA, runB) => {
    const a = []
    const b = []
    for (let i = 0; i <= ROUNDS; i++) {
      const [ma, mb] = i % 2 === 0 ? [runA().ms, runB().ms] : [runB().ms, runA().ms].reverse()
      if (i > 0) {
        a.push(ma)
        b.push(mb)
      }
    }
    add(figure, L.median(a), L.median(b))
  }
  timed(
    "`list --json` / `jlist`",
    () => pmfx(["list", "--json"]),
    () => pm2.must(["jlist"])
  )
  timed(
    "`list` / `ls` (the table)",
    () => pmfx(["list"]),
    () => pm2.must(["ls"])
  )

  await L.sleep(5_000)
  const rssA = await L.medianRssMb(L.daemonPid(pmfxHome))
  const rssB = await L.medianRssMb(pm2.daemonPid())
  results.push([
    `daemon RSS, ${count} idle apps`,
    `${L.fmt(rssA)} MB`,
    `${L.fmt(rssB)} MB`,
    `${L.fmt(rssA / rssB, 2)}x`
  ])
  L.log(`daemon RSS: pmfx ${L.fmt(rssA)} MB, PM2 ${L.fmt(rssB)} MB`)

  // `restart all` until every process is online again with a new pid.
  const restartA = []
  const restartB = []
  for (let i = 0; i < 2; i++) {
    await L.sleep(SETTLE_MS)
    const before = new Set((await L.listProcesses(pmfxHome)).map((p) => p.pid))
    const t0 = L.now()
    pmfx(["restart", "all"])
    await L.waitFor(
      "pmfx apps restarted",
      async () => {
        const rows = await L.listProcesses(pmfxHome)
        return rows.length === count && rows.every((p) => p.status === "online" && p.pid !== null && !before.has(p.pid))
      },
      300_000,
      100
    )
    restartA.push(L.now() - t0)
    await L.sleep(SETTLE_MS)
    const beforeB = new Set(pm2.jlist().map((p) => p.pid))
    const t1 = L.now()
    pm2.must(["restart", "all"])
    await L.waitFor(
      "PM2 apps restarted",
      () => {
        const rows = pm2.jlist()
        return (
          rows.length === count && rows.every((p) => p.pm2_env.status === "online" && p.pid > 0 && !beforeB.has(p.pid))
        )
      },
      300_000,
      100
    )
    restartB.push(L.now() - t1)
  }
  add("`restart all`, until all online again", L.median(restartA), L.median(restartB))

  // Each manager's command with the machine settled from the other's.
  const settled = async (run) => {
    await L.sleep(SETTLE_MS)
    return run().ms
  }
  add("`stop all`", await settled(() => pmfx(["stop", "all"])), await settled(() => pm2.must(["stop", "all"])))
  add(
    "`delete all` (stopped apps)",
    await settled(() => pmfx(["delete", "all"])),
    await settled(() => pm2.must(["delete", "all"]))
  )

  L.log(`\npmfx vs PM2 ${pm2.version()} with ${count} idle Node apps, load average now ${L.loadAverage()}\n`)
  L.log(L.table([["figure", "pmfx", "PM2", "ratio (pmfx/PM2)"], ...results]))
}

try {
  await main()
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error))
  process.exitCode = 1
} finally {
  await cleanup()
}
