// pmfx against PM2 7, every figure of the comparison measured in ONE run on the same generated apps
// (`npm run bench -- --vs pm2`, or `node bench/vsPm2.mjs`). What is measured, in this order:
//   1. `list --json` (pmfx) / `jlist` (PM2) with 10 idle apps: median wall time of the CLI;
//   2. the daemon's CPU over a window (default 60 s, `--window <s>`) with those 10 idle apps, both
//      daemons idling at the same time (same load);
//   3. the daemon's RSS with the 10 idle apps;
//   4. starting 50 apps from one ecosystem file (`pmfx start f.config.js` / `pm2 start f.config.js`,
//      the daemon already up): wall time of the CLI; the floor is 50 bare `node -e 0` spawned at
//      once, until the last one exits;
//   5. the daemon's RSS with those 60 apps;
//   6. crash → respawn gap of a Node child: the crashing child's last JS line → its replacement's
//      first JS line (both stamp the wall clock into a file), median over CRASH_ROUNDS × CRASHES crashes; the
//      reference is a shell loop respawning the same child (`while :; do node crash.js; done`); the
//      note gives each side's gap to the replacement's exec (its `performance.timeOrigin`), the part
//      a manager controls, without the replacement's Node start, and the same two for a bare Node
//      process respawning the child from its `exit` event (what no manager written in Node beats);
//   7. 300,000 log lines (one write per line) through the manager: from the child's first JS line
//      until its out file holds every line (polled every 5 ms); the reference is the child writing
//      straight to a file (first JS line → exit), in LOG_RUNS runs of the three in a rotating
//      order. Every stored line is checked: lost, duplicated, reordered.
// PM2 is installed in a temporary folder with its own PM2_HOME and removed at the end, pmfx runs
// from dist/ with its own PMFX_HOME; both are cleaned up also on failure and Ctrl-C. The table is
// printed and, with `--write` (what `npm run bench -- --vs pm2` passes), written into
// docs/benchmarks.md (between the vs-pm2 markers) and docs/images/benchmarks.svg.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as L from "./lib.mjs"
import { installPm2 } from "./pm2Harness.mjs"
import { renderTable, writeDocs } from "./vsPm2Report.mjs"

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : fallback
}
const WINDOW_S = Number(arg("--window", "60"))
const LIST_RUNS = 10
const CRASHES = 15
const CRASH_ROUNDS = 3
const LOG_LINES = 300_000
const LOG_RUNS = 3
const PAD = "x".repeat(60)

const startedAt = new Date()
const loadAtStart = L.loadAverage()
L.log(
  `pmfx vs PM2 — ${startedAt.toISOString()}; node ${process.version}; ${os.cpus().length} CPUs; load average at start ${loadAtStart}`
)

// --- the generated apps, shared by both managers -------------------------------------------------
const work = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-vs-work-"))
const pmfxHome = L.makeHome("vs")
let pm2 = null
let cleaning = null
const cleanupAll = () => {
  cleaning ??= (async () => {
    if (pm2 !== null) pm2.cleanup()
    await L.cleanup(pmfxHome)
    fs.rmSync(work, { recursive: true, force: true })
  })()
  return cleaning
}
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.once(sig, () => {
    L.log(`\n${sig}: cleaning up (PM2's folder, pmfx's home, the apps)`)
    cleanupAll().finally(() => process.exit(130))
  })
}

const file = (name, text) => {
  const p = path.join(work, name)
  fs.writeFileSync(p, text)
  return p
}
const IDLE = file("idle.js", "setInterval(() => {}, 1000)\n")
const CRASH = file(
  "crash.js",
  `const fs = require("fs"); const f = process.argv[2]
const stamp = (what, extra = "") => fs.appendFileSync(f, what + " " + (performance.timeOrigin + performance.now()) + extra + "\\n")
// The start line also carries performance.timeOrigin: when Node began, right after the exec.
stamp("start", " " + performance.timeOrigin)
setTimeout(() => { stamp("exit"); process.exit(1) }, 300)
`
)
// The floor of any manager written in Node: a bare Node process that spawns the child again from
// its `exit` event, nothing else (a fork of a Node process costs more than the shell's fork).
const NODE_RESPAWNER = file(
  "respawner.js",
  `const { spawn } = require("child_process"); const [crash, stamps] = process.argv.slice(2)
const run = () => spawn(process.execPath, [crash, stamps], { stdio: "ignore" }).once("exit", run)
run()
`
)
const WRITER = file(
  "writer.js",
  `const fs = require("fs"); const [n, stampFile] = [Number(process.argv[2]), process.argv[3]]
const pad = ${JSON.stringify(PAD)}
fs.writeFileSync(stampFile, String(performance.timeOrigin + performance.now()))
for (let i = 0; i < n; i++) process.stdout.write("line " + i + " " + pad + "\\n")
`
)
const ecosystem = (name, apps) => file(name, "module.exports = " + JSON.stringify({ apps }, null, 2) + "\n")
const idleApps = (prefix, n) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, script: IDLE }))
const ECO10 = ecosystem("idle10.config.js", idleApps("idle", 10))
const ECO50 = ecosystem("bulk50.config.js", idleApps("bulk", 50))

const wallNow = () => performance.timeOrigin + performance.now()
const pmfx = (args) => L.cli(pmfxHome, args, 120_000)
const pmfxMust = (args) => {
  const r = pmfx(args)
  if (r.status !== 0) throw new Error(`pmfx ${args.join(" ")} exited ${r.status}: ${r.stderr || r.stdout}`)
  return r
}
const rss = L.medianRssMb
const pmfxOnline = (count, prefix) =>
  L.waitFor(
    `${count} pmfx processes online`,
    async () => {
      const rows = (await L.listProcesses(pmfxHome)).filter((p) => p.name.startsWith(prefix))
      return rows.length >= count && rows.every((p) => p.status === "online" && p.pid !== null)
    },
    120_000,
    250
  )

/** Spawns `n` commands at once; resolves with the wall time until the last has exited. */
const spawnAtOnce = (n, cmd, args) =>
  new Promise((resolve, reject) => {
    const t0 = L.now()
    let left = n
    for (let i = 0; i < n; i++) {
      const c = spawn(cmd, args, { stdio: "ignore" })
      c.on("error", reject)
      c.on("exit", () => {
        if (--left === 0) resolve(L.now() - t0)
      })
    }
  })

/**
 * Each crash's gaps in ms, from an `exit` stamp of a crash file to the `start` stamp after it: to
 * the replacement's first line (`total`), and to its `performance.timeOrigin` (`toExec`: the
 * manager's own part, without the replacement's Node start, which moves by ±8 ms from run to run).
 */
const crashGaps = (stampFile) => {
  const rows = fs
    .readFileSync(stampFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(" "))
  const gaps = []
  for (let i = 1; i < rows.length; i++) {
    if (rows[i - 1][0] === "exit" && rows[i][0] === "start") {
      const exited = Number(rows[i - 1][1])
      gaps.push({ total: Number(rows[i][1]) - exited, toExec: Number(rows[i][2]) - exited })
    }
  }
  return gaps
}
const startsIn = (stampFile) => {
  try {
    return fs
      .readFileSync(stampFile, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("start")).length
  } catch {
    return 0
  }
}

/** Lines `… line <i> <pad>` for i = 0..n-1, once each and in order (any prefix: pmfx timestamps). */
const verifyLog = (out, n) => {
  const text = fs.readFileSync(out, "utf8")
  const seen = new Uint8Array(n)
  let expected = 0
  let reordered = 0
  let bad = 0
  for (const line of text.split("\n")) {
    if (line === "") continue
    const at = line.indexOf("line ")
    const i = at < 0 ? NaN : Number(line.slice(at + 5, line.indexOf(" ", at + 5)))
    if (!Number.isInteger(i) || i >= n || !line.endsWith(PAD)) {
      bad++
      continue
    }
    if (i !== expected) reordered++
    expected = i + 1
    seen[i]++
  }
  let lost = 0
  for (let i = 0; i < n; i++) if (seen[i] === 0) lost++
  return { lost, reordered, bad }
}

const results = []
const add = (figure, unit, pmfxValue, pm2Value, reference = null, note = "") => {
  results.push({ figure, unit, pmfx: pmfxValue, pm2: pm2Value, reference, note })
  L.log(
    `  ${figure}: pmfx ${L.fmt(pmfxValue, 2)} ${unit}, PM2 ${L.fmt(pm2Value, 2)} ${unit}` +
      (reference ? `, ${reference.label} ${L.fmt(reference.value, 2)} ${unit}` : "")
  )
}

try {
  pm2 = installPm2()
  // Node reads the file NODE_EXTRA_CA_CERTS names at every start (~50 ms of each Node start on a
  // machine whose shell sets it for a proxy). Nothing measured makes a TLS connection: once npm has
  // installed PM2 it leaves the environment that both managers, their apps and the references
  // inherit, so the figures are the managers', not the certificate bundle's.
  delete process.env.NODE_EXTRA_CA_CERTS
  const pm2Version = pm2.version()
  L.log(`PM2 ${pm2Version} in ${pm2.dir}; pmfx home ${pmfxHome}\n`)

  // 1-3: ten idle apps in each manager ---------------------------------------------------------------
  L.startDaemon(pmfxHome)
  pm2.must(["ping"])
  pmfxMust(["start", ECO10])
  pm2.must(["start", ECO10])
  await pmfxOnline(10, "idle-")
  await pm2.waitOnline(10, "idle-")
  await L.sleep(5000)

  const listTimes = { pmfx: [], pm2: [] }
  for (let i = 0; i < LIST_RUNS + 2; i++) {
    const a = pmfx(["list", "--json"])
    if (a.status !== 0 || JSON.parse(a.stdout).length !== 10) throw new Error(`pmfx list --json: ${a.stderr}`)
    const b = pm2.run(["jlist"])
    if (b.status !== 0) throw new Error(`pm2 jlist: ${b.stderr}`)
    if (i >= 2) listTimes.pmfx.push(a.ms), listTimes.pm2.push(b.ms)
  }
  add("`list --json`, 10 apps", "ms", L.median(listTimes.pmfx), L.median(listTimes.pm2))

  const pmfxPid = L.daemonPid(pmfxHome)
  const pm2Pid = pm2.daemonPid()
  await L.sleep(3000)
  L.log(`  idling ${WINDOW_S} s (both daemons at once) ...`)
  const c0 = [L.cpuTicks(pmfxPid), L.cpuTicks(pm2Pid)]
  await L.sleep(WINDOW_S * 1000)
  const c1 = [L.cpuTicks(pmfxPid), L.cpuTicks(pm2Pid)]
  const pct = (d) => ((d / L.CLK_TCK) * 100) / WINDOW_S
  add(`daemon CPU, 10 idle apps, ${WINDOW_S} s`, "% of a core", pct(c1[0] - c0[0]), pct(c1[1] - c0[1]))

  add("daemon RSS, 10 idle apps", "MB", await rss(pmfxPid), await rss(pm2Pid))

  // 4-5: fifty more apps from one file ---------------------------------------------------------------
  const floor = L.median([await spawnAtOnce(50, L.NODE, ["-e", "0"]), await spawnAtOnce(50, L.NODE, ["-e", "0"])])
  const s1 = pmfxMust(["start", ECO50])
  await pmfxOnline(50, "bulk-")
  const s2 = pm2.must(["start", ECO50])
  await pm2.waitOnline(50, "bulk-")
  add("start 50 apps from one file", "s", s1.ms / 1000, s2.ms / 1000, {
    label: "50 bare `node -e 0` at once",
    value: floor / 1000
  })
  await L.sleep(8000)
  add("daemon RSS, 60 idle apps", "MB", await rss(pmfxPid), await rss(pm2Pid))

  pmfxMust(["delete", "all"])
  pm2.must(["delete", "all"])

  // 6: crash → respawn ---------------------------------------------------------------------------------
  const crashApp = (stamps) => ({
    name: "crasher",
    script: CRASH,
    args: [stamps],
    autorestart: true,
    restart_delay: 0,
    min_uptime: 100,
    max_restarts: 100000
  })
  const measureCrash = async (label, start, stop) => {
    const stamps = path.join(work, `crash-${label}.txt`)
    fs.rmSync(stamps, { force: true })
    await start(stamps)
    await L.waitFor(
      `${CRASHES + 1} starts of the crashing app (${label})`,
      () => startsIn(stamps) >= CRASHES + 1,
      120_000,
      100
    )
    await stop()
    return crashGaps(stamps).slice(0, CRASHES)
  }
  let loop = null
  const crashSteps = {
    pmfx: () =>
      measureCrash(
        "pmfx",
        (s) => pmfxMust(["start", ecosystem("crash-pmfx.config.js", [crashApp(s)])]),
        () => pmfxMust(["delete", "crasher"])
      ),
    pm2: () =>
      measureCrash(
        "pm2",
        (s) => pm2.must(["start", ecosystem("crash-pm2.config.js", [crashApp(s)])]),
        () => pm2.must(["delete", "crasher"])
      ),
    shell: () =>
      measureCrash(
        "shell",
        (s) => {
          loop = spawn("sh", ["-c", `while :; do "${L.NODE}" "${CRASH}" "${s}"; done`], {
            stdio: "ignore",
            detached: true
          })
        },
        async () => {
          process.kill(-loop.pid, "SIGKILL")
        }
      ),
    node: () =>
      measureCrash(
        "node",
        (s) => {
          loop = spawn(L.NODE, [NODE_RESPAWNER, CRASH, s], { stdio: "ignore", detached: true })
        },
        async () => {
          // The respawner and its child, which is in its group as the shell loop's is in the shell's.
          process.kill(-loop.pid, "SIGKILL")
        }
      )
  }
  // CRASH_ROUNDS rounds, the order rotating each round: a shared machine's drift over the minute
  // this takes (a Node child's start moves by ±20 ms here) then falls on all three alike.
  const gaps = { pmfx: [], pm2: [], shell: [], node: [] }
  const crashOrder = ["pmfx", "pm2", "shell", "node"]
  for (let round = 0; round < CRASH_ROUNDS; round++)
    for (let k = 0; k < crashOrder.length; k++) {
      const who = crashOrder[(round + k) % crashOrder.length]
      gaps[who].push(...(await crashSteps[who]()))
    }
  const median = (who, part) => L.median(gaps[who].map((gap) => gap[part]))
  const toExec = (who) => L.fmt(median(who, "toExec"), 1)
  add(
    "crash → respawn gap (Node child)",
    "ms",
    median("pmfx", "total"),
    median("pm2", "total"),
    { label: "shell-loop respawn", value: median("shell", "total") },
    `to the replacement's exec: pmfx ${toExec("pmfx")} ms, PM2 ${toExec("pm2")} ms, shell loop ${toExec("shell")} ms; ` +
      `a bare Node respawner (the floor of a manager in Node) ${L.fmt(median("node", "total"), 1)} ms, to exec ${toExec("node")} ms`
  )

  // 7: 300k log lines -------------------------------------------------------------------------------
  const integrity = { pmfx: { lost: 0, reordered: 0, bad: 0 }, pm2: { lost: 0, reordered: 0, bad: 0 } }
  const direct = []
  const through = { pmfx: [], pm2: [] }
  const countBoth = (sum, v) => {
    sum.lost += v.lost
    sum.reordered += v.reordered
    sum.bad += v.bad
  }
  const throughManager = async (who, run) => {
    const out = path.join(work, `log-${who}-${run}.out`)
    const stampFile = out + ".stamp"
    const app = {
      name: `log-${run}`,
      script: WRITER,
      args: [String(LOG_LINES), stampFile],
      autorestart: false,
      out_file: out,
      error_file: out + ".err"
    }
    const eco = ecosystem(`log-${who}-${run}.config.js`, [app])
    if (who === "pmfx") pmfxMust(["start", eco])
    else pm2.must(["start", eco])
    const count = L.lineCounter(out)
    await L.waitFor(`${LOG_LINES} lines in ${out}`, () => count() >= LOG_LINES, 300_000, 5)
    const done = wallNow()
    through[who].push(done - Number(fs.readFileSync(stampFile, "utf8")))
    countBoth(integrity[who], verifyLog(out, LOG_LINES))
    if (who === "pmfx") pmfxMust(["delete", app.name])
    else pm2.must(["delete", app.name])
    fs.rmSync(out, { force: true })
  }
  const straightToFile = async (run) => {
    const out = path.join(work, `direct-${run}.out`)
    const fd = fs.openSync(out, "w")
    await new Promise((resolve, reject) => {
      const c = spawn(L.NODE, [WRITER, String(LOG_LINES), out + ".stamp"], { stdio: ["ignore", fd, "inherit"] })
      c.on("error", reject)
      c.on("exit", () => {
        direct.push(wallNow() - Number(fs.readFileSync(out + ".stamp", "utf8")))
        resolve()
      })
    })
    fs.closeSync(fd)
    fs.rmSync(out, { force: true })
  }
  // The order rotates each run, so that none of the three always follows another's 22 MB of writes.
  const logSteps = [straightToFile, (run) => throughManager("pmfx", run), (run) => throughManager("pm2", run)]
  for (let run = 0; run < LOG_RUNS; run++)
    for (let k = 0; k < logSteps.length; k++) await logSteps[(run + k) % logSteps.length](run)
  const i = integrity
  add(
    "300k log lines through the manager",
    "s",
    L.median(through.pmfx) / 1000,
    L.median(through.pm2) / 1000,
    { label: "child → file directly", value: L.median(direct) / 1000 },
    `lost/reordered/malformed: pmfx ${i.pmfx.lost}/${i.pmfx.reordered}/${i.pmfx.bad}, PM2 ${i.pm2.lost}/${i.pm2.reordered}/${i.pm2.bad}`
  )
  L.log(
    `  lines lost/reordered/malformed over ${LOG_RUNS} runs: pmfx ${i.pmfx.lost}/${i.pmfx.reordered}/${i.pmfx.bad}; PM2 ${i.pm2.lost}/${i.pm2.reordered}/${i.pm2.bad}`
  )

  const run = {
    date: startedAt.toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}`,
    load: loadAtStart,
    pm2Version,
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    results
  }
  L.log("\n" + renderTable(run))
  if (process.argv.includes("--write")) L.log("\n" + writeDocs(run))
} catch (error) {
  // An installation failure is the user's to fix (its message says how): no stack for it.
  L.log(
    `FAILED: ${String(error?.message).startsWith("PM2 could not be installed") ? error.message : (error?.stack ?? error)}`
  )
  process.exitCode = 1
} finally {
  await cleanupAll()
}
