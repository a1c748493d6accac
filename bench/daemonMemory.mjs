// Budget (docs/architecture.md §12): daemon RSS with 10 apps below PM2's daemon (~61 MB); flat under long runs
// (no growth per log line, per restart, per request, per WebSocket client).
//
// RSS is VmRSS from /proc/<daemon pid>/status (the pid in $PMFX_HOME/daemon.pid), the median of
// 5 readings 200 ms apart, taken SETTLE_MS after a load. No GC is forced. With 10 idle apps
// settled, the baseline; then PASSES passes over five loads, RSS read after each load:
//   (a) 5,000 API requests over the socket (a fresh connection each, 10 at a time; a mix of
//       GET /api/processes, GET /api/processes/<name>, GET /api/status, GET /health and a 404);
//   (b) 200 restarts of an app (POST /api/processes/<app>/restart, one after the other; the app
//       is `sleep`, so that the daemon's work rather than Node start-up sets the pace);
//   (c) 200,000 log lines written by an app (a Node child, one write per line);
//   (d) 200 WebSocket clients connecting (to their first message) and disconnecting, 10 at a time;
//   (e) 20 WebSocket clients subscribed to logs that stop reading (`ws.pause()`) while an app
//       floods 300,000 log lines; the daemon should disconnect them. Counted by resuming them
//       afterwards: a closed one sees its close, a live one answers a ping.
// Pass 1 includes warm-up (JIT, heap growth, buffers reaching their working size). RSS is also
// read every 100 ms throughout. A V8 heap that is never forced to collect makes RSS right after a
// load noisy (tens of MB up or down: garbage not collected yet, and an idle Node daemon does not
// necessarily collect it), so the flatness verdict uses the floor: the lowest RSS seen during the
// last pass and the IDLE_S seconds of idling after it, against the baseline. Whatever the daemon
// retains after 15,000 requests, 600 restarts, 600,000 lines and 600 + 60 clients stays under
// that floor, so a leak lifts it; garbage does not, once a collection has happened (a load as
// heavy as (e) makes V8 collect). The per-load numbers after each pass are printed too (pass 1 →
// pass 2 is the growth between the first and second round of the same load; it is dominated by
// garbage not collected yet).
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"

const APPS = 10
const PM2_DAEMON_MB = 61
const SETTLE_MS = 1500
const IDLE_S = 20
const PASSES = 3
const RETAINED_MB = 10
const REQUESTS = 5000
const RESTARTS = 200
const LOG_LINES = 200_000
const WS_CLIENTS = 200
const SLOW_CLIENTS = 20
const FLOOD_LINES = 300_000

const rssKb = async (pid) => {
  const xs = []
  for (let i = 0; i < 5; i++) {
    xs.push(L.vmRssKb(pid))
    await L.sleep(200)
  }
  return L.median(xs)
}

/** Lowest and last RSS over `seconds` of idling, read every 500 ms. */
const idleRss = async (pid, seconds) => {
  const xs = []
  for (let i = 0; i < seconds * 2; i++) {
    await L.sleep(500)
    xs.push(L.vmRssKb(pid))
  }
  return { min: Math.min(...xs), last: xs[xs.length - 1], max: Math.max(...xs) }
}

/** Runs `count` tasks, `parallel` at a time. */
const pool = async (count, parallel, task) => {
  let next = 0
  const worker = async () => {
    while (next < count) await task(next++)
  }
  await Promise.all(Array.from({ length: parallel }, worker))
}

const LOGGER = `const n = Number(process.argv[2]); const pad = "y".repeat(60)
for (let i = 0; i < n; i++) process.stdout.write("line " + i + " " + pad + "\\n")
`

L.log(`daemonMemory: ${APPS} idle apps, then ${PASSES} passes over 5 loads; load average ${L.loadAverage()}`)

await L.withDaemon("memory", async (home) => {
  const pid = L.startDaemon(home)
  const logger = path.join(home, "logger.js")
  fs.writeFileSync(logger, LOGGER)
  await L.createApp(home, {
    apps: Array.from({ length: APPS }, (_, i) => ({ name: `idle-${i}`, script: L.NODE, args: L.IDLE_ARGS }))
  })
  await L.waitOnline(home, APPS)
  await L.sleep(3000)
  const base = await rssKb(pid)
  L.log(`  baseline with ${APPS} idle apps: ${L.fmt(L.mb(base))} MB (PM2's daemon: ~${PM2_DAEMON_MB} MB)`)

  const loads = []
  const load = (label, round) => loads.push({ label, round, after: [], extra: [] })

  // (a) API requests
  const paths = ["/api/processes", "/api/processes/idle-3", "/api/status", "/health", "/api/processes/nope"]
  load(`(a) ${REQUESTS} API requests`, async () => {
    const statuses = new Map()
    await pool(REQUESTS, 10, async (i) => {
      const r = await L.api(home, "GET", paths[i % paths.length])
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
    })
    return ` [${[...statuses].map(([s, n]) => `${n}×${s}`).join(" ")}]`
  })

  // (b) restarts
  load(`(b) ${RESTARTS} restarts`, async (round) => {
    if (round === 1) {
      await L.createApp(home, { name: "restarter", script: "/bin/sleep", args: ["100000"], min_uptime: "100ms" })
      await L.waitOnline(home, 1, "restarter")
    }
    let failed = 0
    for (let i = 0; i < RESTARTS; i++) {
      const r = await L.api(home, "POST", "/api/processes/restarter/restart")
      if (r.status !== 200) failed++
    }
    const row = (await L.api(home, "GET", "/api/processes/restarter")).json
    return ` [${failed} failed, restarts now ${row.restarts}, ${row.status}]`
  })

  // (c) log lines
  let loggerFile = null
  let loggerLines = 0
  let loggerCount = null
  load(`(c) ${LOG_LINES} log lines`, async (round) => {
    if (round === 1) {
      await L.createApp(home, { name: "logger", script: L.NODE, args: [logger, String(LOG_LINES)], autorestart: false })
      loggerFile = (await L.api(home, "GET", "/api/processes/logger")).json.logs.out_file
    } else {
      const r = await L.api(home, "POST", "/api/processes/logger/start")
      if (r.status !== 200) throw new Error(`starting logger: ${r.status} ${r.text}`)
    }
    loggerLines += LOG_LINES
    loggerCount ??= L.lineCounter(loggerFile)
    const count = loggerCount
    await L.waitFor(
      "the logger's lines",
      async () =>
        count() >= loggerLines && (await L.api(home, "GET", "/api/processes/logger")).json.status === "stopped",
      120_000,
      100
    )
    return ` [${count()} lines in its file]`
  })

  // (d) WebSocket clients connecting and disconnecting
  load(`(d) ${WS_CLIENTS} WebSocket clients`, async () => {
    let firstMessages = 0
    await pool(WS_CLIENTS, 10, async () => {
      let gotFirst
      const first = new Promise((resolve) => (gotFirst = resolve))
      const ws = await L.openWs(home, () => gotFirst())
      await Promise.race([first, L.sleep(5000)])
      firstMessages++
      await L.closeWs(ws)
    })
    return ` [${firstMessages} connected]`
  })

  // (e) slow WebSocket clients during a log flood
  const daemonLog = path.join(home, "daemon.log")
  const stoppedReading = () => (fs.readFileSync(daemonLog, "utf8").match(/stopped reading/g) ?? []).length
  let flood = 0
  load(`(e) ${SLOW_CLIENTS} paused WebSocket clients + ${FLOOD_LINES}-line flood`, async () => {
    const logsBefore = stoppedReading()
    const clients = []
    for (let i = 0; i < SLOW_CLIENTS; i++) {
      let subscribed
      const ready = new Promise((resolve) => (subscribed = resolve))
      const state = { closed: false, pong: false, messages: 0 }
      const ws = await L.openWs(home, (m) => {
        state.messages++
        if (m.type === "subscribed") subscribed()
        if (m.type === "pong") state.pong = true
      })
      ws.on("close", () => (state.closed = true))
      ws.on("error", () => {})
      ws.send(JSON.stringify({ type: "subscribe", channels: ["logs"] }))
      await Promise.race([ready, L.sleep(5000)])
      ws.pause()
      clients.push({ ws, state })
    }
    const name = `flood-${++flood}`
    let peak = 0
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, L.vmRssKb(pid))
      } catch {
        // the daemon is gone: reported below
      }
    }, 100)
    const t0 = L.now()
    await L.createApp(home, { name, script: L.NODE, args: [logger, String(FLOOD_LINES)], autorestart: false })
    const count = L.lineCounter((await L.api(home, "GET", `/api/processes/${name}`)).json.logs.out_file)
    await L.waitFor(
      `${name} done`,
      async () =>
        count() >= FLOOD_LINES && (await L.api(home, "GET", `/api/processes/${name}`)).json.status === "stopped",
      120_000,
      100
    )
    const floodMs = L.now() - t0
    await L.sleep(500)
    clearInterval(sampler)
    // Resume them all: a client the daemon cut off reads what was buffered, then its close.
    for (const c of clients) c.ws.resume()
    await L.sleep(2000)
    for (const c of clients) if (!c.state.closed) c.ws.send(JSON.stringify({ type: "ping" }))
    await L.sleep(1000)
    const closed = clients.filter((c) => c.state.closed).length
    const answering = clients.filter((c) => !c.state.closed && c.state.pong).length
    for (const c of clients) await L.closeWs(c.ws)
    await L.api(home, "DELETE", `/api/processes/${name}`)
    return ` [flood ${L.fmt(floodMs / 1000, 1)} s, peak RSS ${L.fmt(L.mb(peak))} MB; disconnected by the daemon: ${closed}/${SLOW_CLIENTS} (daemon.log: ${stoppedReading() - logsBefore} "stopped reading"), still answering: ${answering}]`
  })

  // RSS every 100 ms, per pass: [min, max]
  let currentPass = 0
  const floors = new Map()
  const sampler = setInterval(() => {
    try {
      const kb = L.vmRssKb(pid)
      const [lo, hi] = floors.get(currentPass) ?? [Infinity, 0]
      floors.set(currentPass, [Math.min(lo, kb), Math.max(hi, kb)])
    } catch {
      // the daemon is gone: found below
    }
  }, 100)
  let end = null
  for (let pass = 1; pass <= PASSES; pass++) {
    currentPass = pass
    for (const l of loads) {
      const t0 = L.now()
      const extra = (await l.round(pass)) ?? ""
      const ms = L.now() - t0
      if (!L.isAlive(pid)) throw new Error(`the daemon (pid ${pid}) died during ${l.label}`)
      await L.sleep(SETTLE_MS)
      const after = await rssKb(pid)
      l.after.push(after)
      l.extra.push(extra)
      L.log(`  pass ${pass} ${l.label}: ${L.fmt(L.mb(after))} MB after (${L.fmt(ms / 1000, 1)} s)${extra}`)
    }
    if (pass === PASSES) {
      end = await idleRss(pid, IDLE_S)
      L.log(
        `  idle ${IDLE_S} s after pass ${pass}: lowest ${L.fmt(L.mb(end.min))} MB, last ${L.fmt(L.mb(end.last))} MB, highest ${L.fmt(L.mb(end.max))} MB`
      )
    }
    const [lo, hi] = floors.get(pass)
    L.log(`  pass ${pass}: RSS between ${L.fmt(L.mb(lo))} and ${L.fmt(L.mb(hi))} MB`)
  }
  clearInterval(sampler)

  const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1])
  const online = (await L.listProcesses(home)).filter((p) => p.name.startsWith("idle-") && p.status === "online").length
  L.log(`  ${online}/${APPS} idle apps still online; peak RSS (VmHWM) ${L.fmt(L.mb(hwm))} MB`)
  L.log("")
  const signed = (x) => `${x >= 0 ? "+" : ""}${L.fmt(x)}`
  L.log(
    L.table([
      [
        "load",
        ...Array.from({ length: PASSES }, (_, i) => `after pass ${i + 1}`),
        ...Array.from({ length: PASSES - 1 }, (_, i) => `Δ ${i + 1}→${i + 2}`)
      ],
      ...loads.map((l) => [
        l.label,
        ...l.after.map((a) => L.fmt(L.mb(a))),
        ...l.after.slice(1).map((a, i) => signed(L.mb(a - l.after[i])))
      ])
    ])
  )
  L.log(`  (MB of VmRSS, ${SETTLE_MS} ms after each load; baseline ${L.fmt(L.mb(base))} MB)`)
  const floor = Math.min(floors.get(PASSES)[0], end.min)
  const retained = L.mb(floor - base)
  L.log(
    `  floor of pass ${PASSES} and the idle after it: ${L.fmt(L.mb(floor))} MB, ${signed(retained)} MB over the baseline; floors per pass: ${[...Array(PASSES)].map((_, i) => L.fmt(L.mb(floors.get(i + 1)[0]))).join(", ")} MB`
  )

  L.report(
    "Daemon RSS with 10 apps: below PM2's daemon (~61 MB)",
    `${L.fmt(L.mb(base))} MB settled (peak ${L.fmt(L.mb(hwm))} MB under load (e))`,
    L.mb(base) < PM2_DAEMON_MB ? "PASS" : "FAIL"
  )
  const slowLoad = loads[loads.length - 1]
  const slowCounts = slowLoad.extra.map((e) => Number(/disconnected by the daemon: (\d+)/.exec(e)?.[1] ?? -1))
  const slowOk = slowCounts.every((n) => n === SLOW_CLIENTS)
  const firstToSecond = loads.map((l) => `${l.label.slice(1, 2)} ${signed(L.mb(l.after[1] - l.after[0]))}`).join(", ")
  L.report(
    "Daemon RSS flat under load (requests, restarts, log lines, WS clients, slow WS clients)",
    `floor after ${PASSES} passes ${L.fmt(L.mb(floor))} MB (${signed(retained)} vs baseline); per-load pass 1→2: ${firstToSecond} MB; paused WS clients cut off: ${slowCounts.join("/")} of ${SLOW_CLIENTS}`,
    retained <= RETAINED_MB && slowOk ? "PASS" : "FAIL",
    `flat = RSS comes back within ${RETAINED_MB} MB of the baseline during/after pass ${PASSES}; floors per pass ${[...Array(PASSES)].map((_, i) => L.fmt(L.mb(floors.get(i + 1)[0]))).join(" → ")} MB (no GC forced: a rising floor is a leak or a V8 heap left to grow, this cannot tell which)`
  )
})
