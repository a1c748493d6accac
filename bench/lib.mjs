// Shared helpers of the benchmarks (docs/architecture.md §12). Plain Node ESM, node built-ins plus `ws`.
//
// Every benchmark runs its own daemon in a fresh PMFX_HOME under /tmp and, even when it fails,
// stops it with `pmfx kill`, checks with `ps` that no process of that home is left (SIGKILL to
// leftovers) and removes the folder: see `withDaemon`.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import WebSocket from "ws"

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
export const CLI = path.join(ROOT, "dist", "pmfx.cjs")
/** What users run (package.json "bin"): the CLI from its startup snapshot, or through CLI (src/pmfx.sh). */
export const EXECUTABLE = path.join(ROOT, "dist", "pmfx")
export const NODE = process.execPath
export const IDLE_ARGS = ["-e", "setInterval(()=>{},1000)"]
export const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

// A closed stdout (`| head`) must not kill a benchmark before it has cleaned up.
process.stdout.on("error", () => {})

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
export const now = () => performance.now()

// ---------------------------------------------------------------------------------------------
// Statistics and formatting

export const sorted = (xs) => [...xs].sort((a, b) => a - b)
/** Nearest-rank percentile. */
export const percentile = (xs, p) => {
  if (xs.length === 0) return NaN
  const s = sorted(xs)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
export const median = (xs) => {
  if (xs.length === 0) return NaN
  const s = sorted(xs)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length
export const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : String(x))
export const mb = (kb) => kb / 1024

/** A table of rows (arrays of strings), the first row the header. */
export const table = (rows) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)))
  const line = (r) => "| " + r.map((c, i) => String(c).padEnd(widths[i])).join(" | ") + " |"
  return [line(rows[0]), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...rows.slice(1).map(line)].join(
    "\n"
  )
}

export const log = (...args) => console.log(...args)

/**
 * The machine-readable result lines that `run.mjs` collects: one per budget line of the summary.
 * verdict: "PASS", "FAIL" or "INFO".
 */
export const report = (budget, measured, verdict, note = "") => {
  console.log("BENCH_RESULT " + JSON.stringify({ budget, measured, verdict, note }))
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")

// ---------------------------------------------------------------------------------------------
// /proc

/** VmRSS of a pid in kB. */
export const vmRssKb = (pid) => {
  const text = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(text)
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(m[1])
}

/** A pid's RSS in MB: the median of 5 VmRSS readings 200 ms apart. */
export const medianRssMb = async (pid) => {
  const xs = []
  for (let i = 0; i < 5; i++) {
    xs.push(vmRssKb(pid))
    await sleep(200)
  }
  return mb(median(xs))
}

/** utime + stime of a pid, in clock ticks. */
export const cpuTicks = (pid) => {
  const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return Number(fields[11]) + Number(fields[12])
}

/** Counts the newlines of a growing file, reading only what was added. */
export const lineCounter = (file) => {
  let offset = 0
  let lines = 0
  const buf = Buffer.alloc(1 << 20)
  return () => {
    let fd
    try {
      fd = fs.openSync(file, "r")
    } catch {
      return 0
    }
    try {
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, offset)
        if (n === 0) break
        offset += n
        for (let i = 0; i < n; i++) if (buf[i] === 10) lines++
      }
    } finally {
      fs.closeSync(fd)
    }
    return lines
  }
}

export const isAlive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------
// The CLI and the daemon

export const makeHome = (tag) => fs.mkdtempSync(path.join(os.tmpdir(), `pmfx-bench-${tag}-`))

/** The environment of everything started for a home: ours, with PMFX_HOME set to it. */
export const homeEnv = (home) => ({ ...process.env, PMFX_HOME: home, NO_COLOR: "1" })

/** Runs the CLI synchronously; `ms` is the wall time of the whole process as seen from here. */
export const cli = (home, args, timeout = 60_000) => {
  const t0 = now()
  const r = spawnSync(EXECUTABLE, args, { env: homeEnv(home), encoding: "utf8", timeout })
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms: now() - t0, error: r.error }
}

export const socketPath = (home) => path.join(home, "pmfx.sock")

export const daemonPid = (home) => Number(fs.readFileSync(path.join(home, "daemon.pid"), "utf8").trim())

/** Starts the home's daemon (through `pmfx ping`) and returns its pid. */
export const startDaemon = (home) => {
  const r = cli(home, ["ping"])
  if (r.status !== 0) throw new Error(`pmfx ping failed (${r.status}): ${r.stderr || r.stdout}`)
  return daemonPid(home)
}

/** One HTTP request over the daemon's unix socket. A fresh connection unless an agent is given. */
export const api = (home, method, urlPath, body, agent = false) =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = http.request(
      {
        socketPath: socketPath(home),
        method,
        path: urlPath,
        agent,
        headers: payload === undefined ? {} : { "content-type": "application/json", "content-length": payload.length }
      },
      (res) => {
        const chunks = []
        res.on("data", (c) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json = null
          try {
            json = text === "" ? null : JSON.parse(text)
          } catch {
            json = null
          }
          resolve({ status: res.statusCode, json, text })
        })
        res.on("error", reject)
      }
    )
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${urlPath}: timed out`)))
    req.on("error", reject)
    if (payload !== undefined) req.write(payload)
    req.end()
  })

/** POST /api/processes; throws unless 201. */
export const createApp = async (home, definition) => {
  const r = await api(home, "POST", "/api/processes", definition)
  if (r.status !== 201) throw new Error(`creating ${definition.name ?? "apps"} failed: ${r.status} ${r.text}`)
  return r.json
}

export const listProcesses = async (home) => {
  const r = await api(home, "GET", "/api/processes")
  if (r.status !== 200) throw new Error(`GET /api/processes: ${r.status} ${r.text}`)
  return r.json
}

export const waitFor = async (what, test, timeoutMs = 30_000, everyMs = 50) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await test()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(everyMs)
  }
}

/** Waits until every row (optionally of one app) is online with a pid. */
export const waitOnline = (home, count, name, timeoutMs = 60_000) =>
  waitFor(
    `${count} processes online`,
    async () => {
      const rows = (await listProcesses(home)).filter((p) => name === undefined || p.name === name)
      return rows.length >= count && rows.every((p) => p.status === "online" && p.pid !== null) ? rows : false
    },
    timeoutMs,
    200
  )

// ---------------------------------------------------------------------------------------------
// Clean-up

/**
 * The pids of every process whose environment holds PMFX_HOME=<home> (the daemon and its apps:
 * apps start from the daemon's environment), found with `ps e` (the environment after the
 * command line). `ps` itself runs without PMFX_HOME, and this benchmark process never has it.
 */
export const homeProcesses = (home) => processesWithEnv("PMFX_HOME", home)

/** Pids of the processes whose environment holds `<name>=<value>` (`ps` runs without that variable). */
export const processesWithEnv = (name, value) => {
  const env = { ...process.env }
  delete env[name]
  const r = spawnSync("ps", ["-e", "-ww", "-o", "pid=,args=", "e"], {
    encoding: "utf8",
    env,
    maxBuffer: 64 * 1024 * 1024
  })
  const marker = `${name}=${value}`
  const pids = []
  for (const line of (r.stdout ?? "").split("\n")) {
    const idx = line.indexOf(marker)
    if (idx < 0) continue
    const after = line[idx + marker.length]
    if (after !== undefined && after !== " ") continue
    const pid = Number(line.trim().split(/\s+/, 1)[0])
    if (Number.isInteger(pid) && pid !== process.pid && pid !== r.pid) pids.push(pid)
  }
  return pids
}

const cleaned = new Set()

/** `pmfx kill`, then no process of the home may remain (SIGKILL to leftovers), then rm -rf. */
export const cleanup = async (home) => {
  if (cleaned.has(home)) return
  cleaned.add(home)
  let daemon = null
  try {
    daemon = daemonPid(home)
  } catch {
    daemon = null
  }
  if (fs.existsSync(socketPath(home))) {
    const r = cli(home, ["kill"], 60_000)
    if (r.status !== 0) log(`  cleanup: pmfx kill exited ${r.status}: ${(r.stderr || r.stdout).trim()}`)
  }
  const deadline = Date.now() + 10_000
  let left = homeProcesses(home)
  if (daemon !== null && isAlive(daemon) && !left.includes(daemon)) left.push(daemon)
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100)
    left = homeProcesses(home).filter(isAlive)
  }
  if (left.length > 0) {
    log(`  cleanup: ${left.length} process(es) of ${home} still alive 10 s after pmfx kill: SIGKILL ${left.join(" ")}`)
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    await sleep(200)
    const still = homeProcesses(home).filter(isAlive)
    if (still.length > 0) log(`  cleanup: STILL ALIVE after SIGKILL: ${still.join(" ")}`)
  }
  fs.rmSync(home, { recursive: true, force: true })
}

/**
 * Runs `fn(home)` with a fresh home (the daemon is started by the first CLI call or by
 * `startDaemon`), and cleans up whatever happens, also on Ctrl-C. A failure is reported and
 * makes the script exit 1.
 */
export const withDaemon = async (tag, fn) => {
  const home = makeHome(tag)
  const onSignal = (sig) => {
    log(`\n${sig}: cleaning up ${home}`)
    cleanup(home).finally(() => process.exit(130))
  }
  // An exception thrown outside the awaited chain (an event handler) must clean up too.
  const onCrash = (error) => {
    log(`FAILED (uncaught): ${error?.stack ?? error}`)
    cleanup(home).finally(() => process.exit(1))
  }
  process.once("SIGINT", onSignal)
  process.once("SIGTERM", onSignal)
  process.on("uncaughtException", onCrash)
  process.on("unhandledRejection", onCrash)
  try {
    return await fn(home)
  } catch (error) {
    log(`FAILED: ${error?.stack ?? error}`)
    process.exitCode = 1
    return undefined
  } finally {
    await cleanup(home)
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    process.off("uncaughtException", onCrash)
    process.off("unhandledRejection", onCrash)
  }
}

// ---------------------------------------------------------------------------------------------
// WebSocket

export const wsUrl = (home) => "ws+unix://" + socketPath(home) + ":/ws"

/** Opens a WebSocket on the daemon's socket; resolves once open. */
export const openWs = (home, onMessage) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(home))
    if (onMessage !== undefined) ws.on("message", (data) => onMessage(JSON.parse(data.toString()), ws))
    ws.once("open", () => resolve(ws))
    ws.once("error", reject)
  })

export const closeWs = (ws) =>
  new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) return resolve()
    const t = setTimeout(() => {
      ws.terminate()
      resolve()
    }, 2000)
    ws.once("close", () => {
      clearTimeout(t)
      resolve()
    })
    ws.close()
  })

export { WebSocket }
