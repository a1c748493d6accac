// Before/after of a change, in one run: two builds of pmfx (two checkouts, each with its dist/ built)
// measured side by side on the same generated apps, so the load of a shared machine hits both.
//   node bench/compareBuilds.mjs <before-checkout> <after-checkout> [--window <s>]
// Figures: the daemon's CPU over the window with 10 idle apps (both daemons idle at once), its RSS
// with 10 and with 60 idle apps, `start` of 50 apps from one file (CLI wall time), and 300,000 log
// lines through the daemon (child's first JS line → all lines in its out file; lines lost/reordered).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as L from "./lib.mjs"

const [beforeDir, afterDir] = process.argv.slice(2).filter((a) => !a.startsWith("--") && !/^\d+$/.test(a))
if (beforeDir === undefined || afterDir === undefined) {
  console.error("usage: node bench/compareBuilds.mjs <before-checkout> <after-checkout> [--window <s>]")
  process.exit(2)
}
const windowAt = process.argv.indexOf("--window")
const WINDOW_S = windowAt >= 0 ? Number(process.argv[windowAt + 1]) : 60
const LINES = 300_000
const PAD = "x".repeat(60)
L.log(`before ${beforeDir}, after ${afterDir}; load average at start ${L.loadAverage()}`)

const work = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-cmp-work-"))
const builds = [
  { label: "before", cli: path.join(path.resolve(beforeDir), "dist", "pmfx.cjs"), home: L.makeHome("cmp-before") },
  { label: "after", cli: path.join(path.resolve(afterDir), "dist", "pmfx.cjs"), home: L.makeHome("cmp-after") }
]
const cleanupAll = async () => {
  for (const b of builds) await L.cleanup(b.home)
  fs.rmSync(work, { recursive: true, force: true })
}
process.once("SIGINT", () => cleanupAll().finally(() => process.exit(130)))

const run = (b, args) => {
  const t0 = L.now()
  const r = spawnSync(L.NODE, [b.cli, ...args], { env: L.homeEnv(b.home), encoding: "utf8", timeout: 120_000 })
  if (r.status !== 0) throw new Error(`${b.label}: pmfx ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
  return L.now() - t0
}
const write = (name, text) => {
  const p = path.join(work, name)
  fs.writeFileSync(p, text)
  return p
}
const IDLE = write("idle.js", "setInterval(() => {}, 1000)\n")
const WRITER = write(
  "writer.js",
  `const fs = require("fs"); fs.writeFileSync(process.argv[3], String(performance.timeOrigin + performance.now()))
for (let i = 0; i < Number(process.argv[2]); i++) process.stdout.write("line " + i + " ${PAD}\\n")\n`
)
const eco = (name, apps) => write(name, "module.exports = " + JSON.stringify({ apps }) + "\n")
const idle = (prefix, n) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, script: IDLE }))
const online = (b, n) =>
  L.waitFor(
    `${b.label}: ${n} online`,
    async () => {
      const rows = await L.listProcesses(b.home)
      return rows.length >= n && rows.every((r) => r.status === "online")
    },
    120_000,
    250
  )
const rss = async (pid) => {
  const xs = []
  for (let i = 0; i < 5; i++) xs.push(L.vmRssKb(pid)), await L.sleep(200)
  return L.mb(L.median(xs))
}

const rows = [["figure", "before", "after", "after/before"]]
const add = (figure, a, b, digits = 2) => rows.push([figure, L.fmt(a, digits), L.fmt(b, digits), L.fmt(b / a, 2) + "x"])

try {
  const ECO10 = eco("idle10.config.js", idle("idle", 10))
  const ECO50 = eco("bulk50.config.js", idle("bulk", 50))
  for (const b of builds) {
    run(b, ["ping"])
    b.pid = L.daemonPid(b.home)
    run(b, ["start", ECO10])
    await online(b, 10)
  }
  await L.sleep(5000)
  L.log(`idling ${WINDOW_S} s (both daemons at once) ...`)
  const t0 = builds.map((b) => L.cpuTicks(b.pid))
  await L.sleep(WINDOW_S * 1000)
  const cpu = builds.map((b, i) => (((L.cpuTicks(b.pid) - t0[i]) / L.CLK_TCK) * 100) / WINDOW_S)
  add(`daemon CPU, 10 idle apps, ${WINDOW_S} s (% of a core)`, cpu[0], cpu[1])
  const rss10 = [await rss(builds[0].pid), await rss(builds[1].pid)]
  add("daemon RSS, 10 idle apps (MB)", rss10[0], rss10[1], 1)
  const start = []
  for (const b of builds) {
    start.push(run(b, ["start", ECO50]) / 1000)
    await online(b, 60)
  }
  add("start 50 apps from one file (s)", start[0], start[1])
  await L.sleep(8000)
  add("daemon RSS, 60 idle apps (MB)", await rss(builds[0].pid), await rss(builds[1].pid), 1)
  for (const b of builds) run(b, ["delete", "all"])
  const logTimes = [[], []]
  const damage = ["", ""]
  for (let r = 0; r < 3; r++) {
    for (const [i, b] of builds.entries()) {
      const out = path.join(work, `${b.label}-${r}.out`)
      run(b, [
        "start",
        eco(`log-${b.label}-${r}.config.js`, [
          { name: `log-${r}`, script: WRITER, args: [String(LINES), out + ".t0"], autorestart: false, out_file: out }
        ])
      ])
      const count = L.lineCounter(out)
      await L.waitFor(`${LINES} lines`, () => count() >= LINES, 300_000, 5)
      logTimes[i].push(performance.timeOrigin + performance.now() - Number(fs.readFileSync(out + ".t0", "utf8")))
      let expected = 0
      let bad = 0
      for (const line of fs.readFileSync(out, "utf8").split("\n")) {
        if (line === "") continue
        const m = / line (\d+) x+$/.exec(line)
        if (m === null || Number(m[1]) !== expected) bad++
        expected = m === null ? expected : Number(m[1]) + 1
      }
      if (bad > 0 || expected !== LINES) damage[i] += ` run ${r}: ${bad} lines out of place, last ${expected - 1};`
      run(b, ["delete", `log-${r}`])
      fs.rmSync(out, { force: true })
    }
  }
  add("300k log lines through the daemon (s)", L.median(logTimes[0]) / 1000, L.median(logTimes[1]) / 1000)
  L.log("\n" + L.table(rows))
  L.log(`lines lost or out of order: before ${damage[0] || "none"}; after ${damage[1] || "none"}`)
} catch (error) {
  L.log(`FAILED: ${error?.stack ?? error}`)
  process.exitCode = 1
} finally {
  await cleanupAll()
}
