// The 300k-line log figure in alternating rounds, for before/after comparisons on a loaded machine
// (docs/benchmarks.md, "The log path, another pass"):
//   node bench/logRounds.mjs before=<checkout> after=<checkout> [--pm2] [--rounds 9] [--lines 300000]
// Each round runs the child writing straight to a file ("direct"), then the same child as an app of
// each build's daemon (and of PM2 7 with --pm2), the order rotated every round. Per run: wall (the
// child's first JS line → every line in the out file), write (the child's loop), lag (end of the
// loop → every line stored), the child's CPU, the daemon's CPU (clock ticks, and schedstat's time on
// a CPU and waiting on the run queue). Medians at the end; every stored line is checked.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as L from "./lib.mjs"
import { installPm2 } from "./pm2Harness.mjs"
const argv = process.argv.slice(2)
const opt = (n, d) => {
  const i = argv.indexOf(n)
  return i >= 0 ? argv[i + 1] : d
}
const ROUNDS = Number(opt("--rounds", "5"))
const LINES = Number(opt("--lines", "300000"))
const withPm2 = argv.includes("--pm2")
const builds = argv
  .filter((a, i) => !a.startsWith("--") && !(i > 0 && argv[i - 1].startsWith("--")))
  .map((spec) => {
    const [label, dir] = spec.split("=")
    return { label, cli: path.join(dir, "dist", "pmfx.cjs"), home: L.makeHome("ab-" + label) }
  })
const PAD = "x".repeat(60)
const work = fs.mkdtempSync(path.join(os.tmpdir(), "logpath-ab-"))
const WRITER = path.join(work, "writer.js")
fs.writeFileSync(
  WRITER,
  `const fs = require("fs"); const [n, stampFile] = [Number(process.argv[2]), process.argv[3]]
const pad = ${JSON.stringify(PAD)}
const t0 = performance.timeOrigin + performance.now()
fs.writeFileSync(stampFile, String(t0))
for (let i = 0; i < n; i++) process.stdout.write("line " + i + " " + pad + "\\n")
fs.appendFileSync(stampFile, " " + String(performance.timeOrigin + performance.now()))
process.on("exit", () => { const u = process.cpuUsage(); fs.appendFileSync(stampFile, " " + String(performance.timeOrigin + performance.now()) + " " + (u.user + u.system) / 1000) })
`
)
const sched = (pid) => {
  let run = 0,
    wait = 0
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const [a, b] = fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ").map(Number)
      run += a
      wait += b
    } catch {}
  }
  return [run / 1e6, wait / 1e6]
}
const wallNow = () => performance.timeOrigin + performance.now()
let pm2 = null
const cleanupAll = async () => {
  if (pm2) pm2.cleanup()
  for (const b of builds) if (!b.pm2) await L.cleanup(b.home)
  fs.rmSync(work, { recursive: true, force: true })
}
process.once("SIGINT", () => cleanupAll().finally(() => process.exit(130)))
const runCli = (b, args) => {
  const r = spawnSync(L.NODE, [b.cli, ...args], { env: L.homeEnv(b.home), encoding: "utf8" })
  if (r.status !== 0) throw new Error(r.stderr)
}
const verify = (out) => {
  const text = fs.readFileSync(out, "utf8")
  let expected = 0,
    bad = 0
  for (const line of text.split("\n")) {
    if (line === "") continue
    const m = / ?line (\d+) x+$/.exec(line)
    if (m === null || Number(m[1]) !== expected) bad++
    expected = m === null ? expected : Number(m[1]) + 1
  }
  return bad + (LINES - expected)
}
const res = {}
const push = (k, v) => (res[k] ??= []).push(v)
try {
  if (withPm2) {
    pm2 = installPm2()
    pm2.must(["ping"])
    builds.push({ label: "pm2", pm2: true })
  }
  for (const b of builds)
    if (!b.pm2) {
      runCli(b, ["ping"])
      b.pid = L.daemonPid(b.home)
    } else b.pid = pm2.daemonPid()
  L.log(`load ${L.loadAverage()}`)
  for (let r = 0; r < ROUNDS; r++) {
    const order = [{ label: "direct" }, ...builds]
    for (let k = 0; k < r % order.length; k++) order.push(order.shift())
    for (const b of order) {
      const out = path.join(work, `${b.label}-${r}.out`)
      const stamp = out + ".stamp"
      if (b.label === "direct") {
        const fd = fs.openSync(out, "w")
        await new Promise((res2) => {
          const c = spawn(L.NODE, [WRITER, String(LINES), stamp], { stdio: ["ignore", fd, "inherit"] })
          c.on("exit", res2)
        })
        fs.closeSync(fd)
        const done = wallNow()
        const [t0, t1, , ccpu] = fs.readFileSync(stamp, "utf8").split(" ").map(Number)
        push("direct.childcpu", ccpu)
        push("direct.wall", done - t0)
        push("direct.write", t1 - t0)
      } else {
        const eco = path.join(work, `${b.label}-${r}.config.js`)
        fs.writeFileSync(
          eco,
          "module.exports = " +
            JSON.stringify({
              apps: [
                {
                  name: `log-${r}`,
                  script: WRITER,
                  args: [String(LINES), stamp],
                  autorestart: false,
                  out_file: out,
                  error_file: out + ".err"
                }
              ]
            })
        )
        const cpu0 = L.cpuTicks(b.pid)
        if (b.pm2) pm2.must(["start", eco])
        else runCli(b, ["start", eco])
        const cpu1 = L.cpuTicks(b.pid)
        const s1 = sched(b.pid)
        push(b.label + ".cpuStart", ((cpu1 - cpu0) * 1000) / L.CLK_TCK)
        const count = L.lineCounter(out)
        await L.waitFor("lines", () => count() >= LINES, 300_000, 5)
        const done = wallNow()
        await L.waitFor("t1", () => fs.readFileSync(stamp, "utf8").split(" ").length >= 4, 30_000, 5)
        const [t0, t1, t2, ccpu] = fs.readFileSync(stamp, "utf8").split(" ").map(Number)
        push(b.label + ".exit", t2 - t0)
        push(b.label + ".childcpu", ccpu)
        push(b.label + ".wall", done - t0)
        push(b.label + ".write", t1 - t0)
        push(b.label + ".lag", done - t1)
        push(b.label + ".cpuFlood", ((L.cpuTicks(b.pid) - cpu1) * 1000) / L.CLK_TCK)
        const s2 = sched(b.pid)
        push(b.label + ".dRun", s2[0] - s1[0])
        push(b.label + ".dRunqWait", s2[1] - s1[1])
        const damage = verify(out)
        if (damage) L.log(`  ${b.label} round ${r}: ${damage} lines damaged`)
        if (b.pm2) pm2.must(["delete", `log-${r}`])
        else runCli(b, ["delete", `log-${r}`])
      }
      fs.rmSync(out, { force: true })
    }
    L.log(
      `round ${r}: ` +
        Object.entries(res)
          .filter(([k]) => k.endsWith(".wall"))
          .map(([k, v]) => `${k} ${L.fmt(v[v.length - 1])}`)
          .join(", ")
    )
  }
  for (const [k, v] of Object.entries(res))
    L.log(`${k.padEnd(16)} median ${L.fmt(L.median(v)).padStart(7)}  [${v.map((x) => L.fmt(x, 0)).join(" ")}]`)
  L.log(`load ${L.loadAverage()}`)
} finally {
  await cleanupAll()
}
