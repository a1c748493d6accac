// Budget (docs/architecture.md §12): `pmfx list --json` with 10 apps is faster than `pm2 jlist` (~150 ms on the
// project's 2-core machines, where a bare `node -e 0` took ~60 ms).
//
// A daemon with 10 idle apps; `node dist/pmfx.cjs list --json` is run 2 times to warm up (page
// cache, V8 code cache) and then 20 times, each timed from spawn to exit as seen by this process
// (spawnSync). `node -e 0` is timed the same way on this machine, as the floor of any Node CLI.
import { spawnSync } from "node:child_process"
import * as L from "./lib.mjs"

const WARMUP = 2
const RUNS = 20
const APPS = 10
const PM2_JLIST_MS = 150
const ANCHOR_NODE_MS = 60

const timeRuns = (label, run) => {
  for (let i = 0; i < WARMUP; i++) run()
  const ms = []
  for (let i = 0; i < RUNS; i++) ms.push(run())
  L.log(
    `  ${label}: median ${L.fmt(L.median(ms))} ms, p90 ${L.fmt(L.percentile(ms, 90))} ms, min ${L.fmt(Math.min(...ms))}, max ${L.fmt(Math.max(...ms))}`
  )
  return ms
}

L.log(
  `listLatency: \`pmfx list --json\` with ${APPS} idle apps (${WARMUP} warm-ups, ${RUNS} timed runs); load average ${L.loadAverage()}`
)

await L.withDaemon("list", async (home) => {
  L.startDaemon(home)
  await L.createApp(home, {
    apps: Array.from({ length: APPS }, (_, i) => ({ name: `idle-${i}`, script: L.NODE, args: L.IDLE_ARGS }))
  })
  await L.waitOnline(home, APPS)

  const nodeMs = timeRuns("node -e 0           ", () => {
    const t0 = L.now()
    const r = spawnSync(L.NODE, ["-e", "0"], { stdio: "ignore" })
    if (r.status !== 0) throw new Error("node -e 0 failed")
    return L.now() - t0
  })
  const listMs = timeRuns("pmfx list --json    ", () => {
    const r = L.cli(home, ["list", "--json"])
    if (r.status !== 0) throw new Error(`pmfx list --json exited ${r.status}: ${r.stderr}`)
    const rows = JSON.parse(r.stdout)
    if (!Array.isArray(rows) || rows.length !== APPS) throw new Error(`pmfx list --json gave ${r.stdout.slice(0, 200)}`)
    return r.ms
  })

  const listMedian = L.median(listMs)
  const nodeMedian = L.median(nodeMs)
  const overNode = listMedian - nodeMedian
  // The anchor was measured where `node -e 0` took ~60 ms: scale it to this machine's Node start-up.
  const scaledAnchor = (PM2_JLIST_MS * nodeMedian) / ANCHOR_NODE_MS
  L.log(
    `  pmfx list costs ${L.fmt(overNode)} ms over a bare node start (pm2 jlist: ~${PM2_JLIST_MS - ANCHOR_NODE_MS} ms over it on the anchor machine)`
  )
  L.log(
    `  pm2 jlist anchor ${PM2_JLIST_MS} ms; scaled to this machine's node start-up (${L.fmt(nodeMedian)} vs ${ANCHOR_NODE_MS} ms): ${L.fmt(scaledAnchor)} ms`
  )

  L.report(
    "`pmfx list --json`, 10 apps: faster than `pm2 jlist` (~150 ms)",
    `median ${L.fmt(listMedian)} ms, p90 ${L.fmt(L.percentile(listMs, 90))} ms (node -e 0: median ${L.fmt(nodeMedian)}, p90 ${L.fmt(L.percentile(nodeMs, 90))} ms)`,
    listMedian < PM2_JLIST_MS && listMedian < scaledAnchor ? "PASS" : "FAIL",
    `${L.fmt(overNode)} ms over node -e 0`
  )
})
