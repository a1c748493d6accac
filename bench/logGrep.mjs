// The cost of `grep` on a log read (docs/api.md, `GET /api/processes/{id}/logs`): a daemon holds
// one app whose out log is LINES stored lines (~100 bytes, written straight into the file), and
// each query below is asked RUNS times; the median wall time is reported. A rare needle makes the
// reader scan the whole file, so that figure is the matching cost per line times LINES plus the
// reading. `/health` is timed meanwhile (one request every 20 ms during the scans): a scan must
// not stall the daemon. No budget: the figures compare engines (RegExp before issue 11, RE2 after).
import * as fs from "node:fs"
import * as path from "node:path"
import * as L from "./lib.mjs"

const LINES = Number(process.env.GREP_BENCH_LINES ?? 500_000)
const RUNS = 5
const WORDS = [
  "GET /api/users",
  "POST /api/orders",
  "cache hit",
  "db query",
  "render page",
  "ERROR upstream timeout",
  "WARN slow request"
]

const QUERIES = [
  ["no grep (last 100 lines)", "lines=100"],
  ["rare literal, full scan", `lines=100&grep=${encodeURIComponent("needle-4242")}`],
  ["rare regex, full scan", `lines=100&grep=${encodeURIComponent("user=4242\\d ms=\\d+ .*(refused|denied)")}`],
  ["frequent /timeout/i, last 100", `lines=100&grep=${encodeURIComponent("/TIMEOUT/i")}`],
  ["frequent \\bdb\\b \\d+ms, 10000 lines", `lines=10000&grep=${encodeURIComponent("\\bdb\\b.*ms=\\d{2,}")}`]
]

await L.withDaemon("grep", async (home) => {
  L.startDaemon(home)
  await L.createApp(home, { name: "big", script: L.NODE, args: L.IDLE_ARGS })
  await L.waitOnline(home, 1, "big")
  const file = path.join(home, "logs", "big-0-out.log")
  const start = Date.now() - LINES
  const fd = fs.openSync(file, "a")
  let chunk = ""
  for (let i = 0; i < LINES; i++) {
    const word = WORDS[i % WORDS.length]
    chunk += `${new Date(start + i).toISOString()} ${word} user=${i % 100000} ms=${i % 977} request-id=${(i * 2654435761) % 4294967296}${i === LINES / 2 ? " needle-4242" : ""}\n`
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk)
      chunk = ""
    }
  }
  fs.writeSync(fd, chunk)
  fs.closeSync(fd)
  L.log(`log file: ${LINES} lines, ${(fs.statSync(file).size / 2 ** 20).toFixed(1)} MiB`)

  const healthMs = []
  let scanning = true
  const probe = (async () => {
    while (scanning) {
      const t0 = L.now()
      await L.api(home, "GET", "/health")
      healthMs.push(L.now() - t0)
      await L.sleep(20)
    }
  })()
  const rows = [["query", "entries", "median ms", "min ms"]]
  const results = {}
  for (const [name, query] of QUERIES) {
    const times = []
    let entries = -1
    for (let r = 0; r < RUNS; r++) {
      const t0 = L.now()
      const reply = await L.api(home, "GET", `/api/processes/big/logs?${query}`)
      times.push(L.now() - t0)
      if (reply.status !== 200) throw new Error(`${query}: ${reply.status} ${reply.text.slice(0, 300)}`)
      entries = reply.json.entries.length
    }
    rows.push([name, String(entries), L.fmt(L.median(times)), L.fmt(Math.min(...times))])
    results[name] = L.median(times)
  }
  scanning = false
  await probe
  L.log(L.table(rows))
  L.log(
    `/health during the scans: ${healthMs.length} requests, median ${L.fmt(L.median(healthMs))} ms, p99 ${L.fmt(L.percentile(healthMs, 99))} ms, max ${L.fmt(Math.max(...healthMs))} ms`
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({ name: "logGrep", lines: LINES, medianMs: results, healthP99Ms: L.percentile(healthMs, 99) })}`
  )
})
