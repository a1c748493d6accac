// Budget (docs/architecture.md §12): a child writing flat out loses no line and is not slowed by more than 2x
// compared with writing to a file directly.
//
// The child (a Node script) writes LINES numbered lines of ~75 bytes as fast as it can, one
// `process.stdout.write` per line (to a file each write is synchronous; to a pipe it is while the
// pipe has room, after which Node queues the writes in the child). It runs:
//   direct: `node child.js > file`, timed from spawn to exit;
//   daemon: as a pmfx app (`autorestart: false`), timed from the POST /api/processes that spawns
//           it until its stdout log file holds all LINES lines (polled every 5 ms).
// RUNS runs each, alternating; the verdict is the ratio of the medians of these wall times. The
// child also stamps its own first and last write, which gives how much it was slowed while
// writing. The daemon's log file is then checked: every line present once, in order, unsplit
// (the stored line is `<timestamp> <line>`).
// The same again with a child writing 64 KiB chunks (lines cross the pipe's reads); the verdict
// takes the worse of the two ratios.
//
// What decides the daemon's figure (docs/benchmarks.md, "The log path, another pass"): the child's
// loop never waits — once its stdout pipe is full, Node queues the rest of its writes in the
// child's memory — so it ends after ~0.2 s, and the rest of the wall time is that backlog going
// through the 64 KiB FIFO, one pipe-full per daemon read. Each run also prints that drain (child's
// last write → all lines in the file) and the daemon's time on a CPU (/proc/<pid>/schedstat).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"

const LINES = 200_000
const RUNS = 3
const BUDGET_RATIO = 2
const PAD = "x".repeat(60)

const CHILD = `const fs = require("fs")
const [n, mode, stampFile] = [Number(process.argv[2]), process.argv[3], process.argv[4]]
const pad = ${JSON.stringify(PAD)}
const t0 = performance.timeOrigin + performance.now()
if (mode === "lines") {
  for (let i = 0; i < n; i++) process.stdout.write("line " + i + " " + pad + "\\n")
} else {
  let buf = ""
  for (let i = 0; i < n; i++) {
    buf += "line " + i + " " + pad + "\\n"
    if (buf.length >= 65536) { process.stdout.write(buf); buf = "" }
  }
  if (buf !== "") process.stdout.write(buf)
}
const t1 = performance.timeOrigin + performance.now()
fs.writeFileSync(stampFile, JSON.stringify({ t0, t1 }))
`

const childMs = (stampFile) => {
  const { t0, t1 } = JSON.parse(fs.readFileSync(stampFile, "utf8"))
  return t1 - t0
}
/** When the child's loop ended (its wall clock, comparable with this process's). */
const childLoopEnd = (stampFile) => JSON.parse(fs.readFileSync(stampFile, "utf8")).t1
const wallNow = () => performance.timeOrigin + performance.now()

/** Every line `<timestamp> line <i> <pad>`, i = 0..n-1 in order. */
const verify = (file, n) => {
  const lines = fs.readFileSync(file, "utf8").split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  let bad = 0
  let outOfOrder = 0
  const seen = new Uint8Array(n)
  let expected = 0
  let firstBad = null
  for (const line of lines) {
    const m = /^\S+ line (\d+) (x+)$/.exec(line)
    if (m === null || m[2] !== PAD || Number(m[1]) >= n) {
      bad++
      if (firstBad === null) firstBad = line.slice(0, 120)
      continue
    }
    const i = Number(m[1])
    if (i !== expected) outOfOrder++
    expected = i + 1
    seen[i]++
  }
  let missing = 0
  let duplicated = 0
  for (let i = 0; i < n; i++) {
    if (seen[i] === 0) missing++
    if (seen[i] > 1) duplicated++
  }
  return { stored: lines.length, bad, missing, duplicated, outOfOrder, firstBad }
}

L.log(`logPath: ${LINES} lines, ${RUNS} runs each way; load average ${L.loadAverage()}`)

await L.withDaemon("log", async (home) => {
  const daemonPid = L.startDaemon(home)
  /** The daemon's time on a CPU, all threads, in ms (ns-precise, unlike utime's clock ticks). */
  const daemonCpuMs = () => {
    let ns = 0
    for (const task of fs.readdirSync(`/proc/${daemonPid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${daemonPid}/task/${task}/schedstat`, "utf8").split(" ")[0])
      } catch {
        // The thread ended meanwhile.
      }
    }
    return ns / 1e6
  }
  const child = path.join(home, "flood-child.js")
  fs.writeFileSync(child, CHILD)
  let app = 0

  const direct = (mode) => {
    const out = path.join(home, `direct-${app++}.log`)
    const stamp = out + ".stamp"
    const fd = fs.openSync(out, "w")
    const t0 = L.now()
    const r = spawnSync(L.NODE, [child, String(LINES), mode, stamp], { stdio: ["ignore", fd, "inherit"] })
    const wall = L.now() - t0
    fs.closeSync(fd)
    if (r.status !== 0) throw new Error(`direct child exited ${r.status}`)
    const count = L.lineCounter(out)()
    fs.rmSync(out)
    if (count !== LINES) throw new Error(`direct child wrote ${count} lines`)
    return { wall, child: childMs(stamp) }
  }

  const throughDaemon = async (mode) => {
    const name = `flood-${app++}`
    const stamp = path.join(home, `${name}.stamp`)
    const t0 = L.now()
    const cpu0 = daemonCpuMs()
    await L.createApp(home, { name, script: L.NODE, args: [child, String(LINES), mode, stamp], autorestart: false })
    const detail = await L.api(home, "GET", `/api/processes/${name}`)
    const outFile = detail.json.logs.out_file
    const count = L.lineCounter(outFile)
    await L.waitFor(`${LINES} lines in ${outFile}`, () => count() >= LINES, 120_000, 5)
    const wall = L.now() - t0
    const doneAt = wallNow()
    const daemonCpu = daemonCpuMs() - cpu0
    await L.waitFor(
      `${name} stopped`,
      async () => (await L.api(home, "GET", `/api/processes/${name}`)).json.status === "stopped",
      30_000,
      20
    )
    await L.sleep(200) // a line more than expected would arrive now
    const check = verify(outFile, LINES)
    const errFile = detail.json.logs.error_file
    const errBytes = fs.existsSync(errFile) ? fs.statSync(errFile).size : 0
    await L.api(home, "DELETE", `/api/processes/${name}`)
    await L.waitFor(`${name}'s stamps`, () => fs.existsSync(stamp), 10_000, 20)
    const drain = doneAt - childLoopEnd(stamp)
    return { wall, child: childMs(stamp), drain, daemonCpu, check, errBytes }
  }

  const results = { direct: [], daemon: [] }
  const lost = []
  for (let i = 0; i < RUNS; i++) {
    results.direct.push(direct("lines"))
    const d = await throughDaemon("lines")
    results.daemon.push(d)
    lost.push(d.check)
    L.log(
      `  run ${i + 1}: direct ${L.fmt(results.direct[i].wall)} ms (child writing ${L.fmt(results.direct[i].child)} ms); ` +
        `daemon ${L.fmt(d.wall)} ms (child writing ${L.fmt(d.child)} ms, then drained in ${L.fmt(d.drain)} ms; daemon on a CPU ${L.fmt(d.daemonCpu)} ms); ` +
        `stored ${d.check.stored}, missing ${d.check.missing}, ` +
        `split/garbled ${d.check.bad}, duplicated ${d.check.duplicated}, out of order ${d.check.outOfOrder}${d.errBytes > 0 ? `, ${d.errBytes} bytes on stderr` : ""}`
    )
    if (d.check.firstBad !== null) L.log(`    first bad line: ${JSON.stringify(d.check.firstBad)}`)
  }
  const directWall = L.median(results.direct.map((r) => r.wall))
  const daemonWall = L.median(results.daemon.map((r) => r.wall))
  const directChild = L.median(results.direct.map((r) => r.child))
  const daemonChild = L.median(results.daemon.map((r) => r.child))
  const ratio = daemonWall / directWall
  L.log(`  median wall: direct ${L.fmt(directWall)} ms, daemon ${L.fmt(daemonWall)} ms → ${L.fmt(ratio, 2)}x`)
  L.log(
    `  median time the child spent writing: direct ${L.fmt(directChild)} ms, daemon ${L.fmt(daemonChild)} ms → ${L.fmt(daemonChild / directChild, 2)}x`
  )
  L.log(`  daemon throughput: ${L.fmt(LINES / (daemonWall / 1000) / 1000)}k lines/s`)
  L.log(
    `  median drain after the child's loop: ${L.fmt(L.median(results.daemon.map((r) => r.drain)))} ms; ` +
      `median daemon time on a CPU per run: ${L.fmt(L.median(results.daemon.map((r) => r.daemonCpu)))} ms`
  )

  // The same with 64 KiB chunks: lines cross the daemon's pipe reads, and the daemon has to split
  // and stamp lines at the speed of a writer that makes ~200x fewer system calls.
  const chunkDirect = []
  const chunkDaemon = []
  for (let i = 0; i < RUNS; i++) {
    chunkDirect.push(direct("chunks"))
    const c = await throughDaemon("chunks")
    chunkDaemon.push(c)
    lost.push(c.check)
    L.log(
      `  64 KiB chunks, run ${i + 1}: direct ${L.fmt(chunkDirect[i].wall)} ms (child writing ${L.fmt(chunkDirect[i].child)} ms); ` +
        `daemon ${L.fmt(c.wall)} ms (child writing ${L.fmt(c.child)} ms; daemon on a CPU ${L.fmt(c.daemonCpu)} ms); ` +
        `stored ${c.check.stored}, missing ${c.check.missing}, ` +
        `split/garbled ${c.check.bad}, duplicated ${c.check.duplicated}, out of order ${c.check.outOfOrder}`
    )
    if (c.check.firstBad !== null) L.log(`    first bad line: ${JSON.stringify(c.check.firstBad)}`)
  }
  const chunkRatio = L.median(chunkDaemon.map((r) => r.wall)) / L.median(chunkDirect.map((r) => r.wall))
  const chunkChildRatio = L.median(chunkDaemon.map((r) => r.child)) / L.median(chunkDirect.map((r) => r.child))
  L.log(`  64 KiB chunks: median wall ratio ${L.fmt(chunkRatio, 2)}x, child-side ${L.fmt(chunkChildRatio, 2)}x`)

  const intact = lost.every(
    (c) => c.missing === 0 && c.bad === 0 && c.duplicated === 0 && c.outOfOrder === 0 && c.stored === LINES
  )
  const worst = Math.max(ratio, chunkRatio)
  L.report(
    "Log path: no line lost, child slowed ≤ 2x vs writing to a file",
    `line-per-write ${L.fmt(ratio, 2)}x wall (${L.fmt(daemonWall)} vs ${L.fmt(directWall)} ms), ${L.fmt(daemonChild / directChild, 2)}x child-side; ` +
      `64 KiB chunks ${L.fmt(chunkRatio, 2)}x wall, ${L.fmt(chunkChildRatio, 2)}x child-side; ${intact ? "all lines intact" : "LINES LOST OR SPLIT"}`,
    worst <= BUDGET_RATIO && intact ? "PASS" : "FAIL",
    `${LINES} lines, ${RUNS} runs per writer, medians`
  )
})
