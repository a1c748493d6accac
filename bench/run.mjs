// Runs the benchmarks of the budgets in docs/architecture.md §12 one after the other and prints a summary table.
//   npm run bench                      every benchmark (~4-5 minutes on 2 cores)
//   npm run bench -- list crash        only those whose file name contains one of the words
// Each benchmark is a standalone script (node bench/<name>.mjs) with its own daemon in a fresh
// PMFX_HOME under /tmp, cleaned up when it ends. Needs the bundle in dist/ (npm run build).
// Exits 1 when a benchmark failed to run; a missed budget is reported, not an error.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
// clusterReload also measures PM2 when PM2_BIN names its bin/pm2 (docs/benchmarks.md).
const BENCHES = [
  "listLatency",
  "daemonMemory",
  "crashRestart",
  "logPath",
  "metricsCost",
  "metricsScrape",
  "clusterReload",
  "dashboardPaint"
]

// `npm run bench -- --vs pm2 [--window <s>] [--no-write]`: the side-by-side comparison with PM2 7
// (bench/vsPm2.mjs), which also rewrites docs/benchmarks.md's table and docs/images/benchmarks.svg.
const vsAt = process.argv.indexOf("--vs")
if (vsAt >= 0) {
  if (process.argv[vsAt + 1] !== "pm2") {
    console.error(`--vs takes pm2 (the only manager compared), got ${process.argv[vsAt + 1] ?? "nothing"}`)
    process.exit(2)
  }
  const rest = process.argv.slice(2).filter((_, i) => i !== vsAt - 2 && i !== vsAt - 1)
  const write = rest.includes("--no-write") ? [] : ["--write"]
  const child = spawn(
    process.execPath,
    [path.join(here, "vsPm2.mjs"), ...rest.filter((a) => a !== "--no-write"), ...write],
    { stdio: "inherit" }
  )
  // Ctrl-C reaches the child too (same process group): it cleans up PM2 and pmfx itself.
  process.on("SIGINT", () => {})
  child.on("close", (code) => process.exit(code ?? 1))
} else {
  await runAll()
}

async function runAll() {
  const filters = process.argv.slice(2).map((a) => a.toLowerCase())
  const selected = BENCHES.filter((b) => filters.length === 0 || filters.some((f) => b.toLowerCase().includes(f)))
  if (selected.length === 0) {
    console.error(`no benchmark matches ${filters.join(" ")}; they are: ${BENCHES.join(", ")}`)
    process.exit(2)
  }
  for (const f of ["pmfx.cjs", "daemon.cjs"]) {
    if (!fs.existsSync(path.join(here, "..", "dist", f))) {
      console.error(`dist/${f} is missing: run npm run build first`)
      process.exit(2)
    }
  }

  const runOne = (name) =>
    new Promise((resolve) => {
      const t0 = performance.now()
      const child = spawn(process.execPath, [path.join(here, `${name}.mjs`)], { stdio: ["ignore", "pipe", "inherit"] })
      const results = []
      let pending = ""
      child.stdout.on("data", (chunk) => {
        pending += chunk.toString("utf8")
        const lines = pending.split("\n")
        pending = lines.pop()
        for (const line of lines) {
          if (line.startsWith("BENCH_RESULT ")) results.push(JSON.parse(line.slice("BENCH_RESULT ".length)))
          else console.log(line)
        }
      })
      // Ctrl-C reaches the child too (same process group); it cleans up its daemon itself.
      child.on("close", (code) => {
        if (pending !== "") console.log(pending)
        resolve({ name, code, results, seconds: (performance.now() - t0) / 1000 })
      })
    })

  const started = new Date()
  console.log(
    `pmfx benchmarks — ${started.toISOString()}; node ${process.version}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}); ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}\n`
  )
  const runs = []
  for (const name of selected) {
    console.log(`=== ${name} ===`)
    const run = await runOne(name)
    console.log(`(${name}: ${run.seconds.toFixed(1)} s, exit ${run.code})\n`)
    runs.push(run)
  }

  const rows = [["budget (docs/architecture.md §12)", "measured", "verdict"]]
  for (const run of runs) {
    if (run.results.length === 0) rows.push([run.name, `did not finish (exit ${run.code})`, "ERROR"])
    for (const r of run.results) rows.push([r.budget, r.measured, r.verdict])
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  const line = (r) => "| " + r.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |"
  console.log("Summary")
  console.log(
    [line(rows[0]), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...rows.slice(1).map(line)].join("\n")
  )
  const notes = runs.flatMap((run) => run.results.filter((r) => r.note).map((r) => `- ${r.budget}: ${r.note}`))
  if (notes.length > 0) console.log("\nNotes\n" + notes.join("\n"))
  console.log(
    `\nTotal ${((Date.now() - started.getTime()) / 1000).toFixed(0)} s; load average now ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`
  )
  process.exitCode = runs.some((r) => r.code !== 0 || r.results.length === 0) ? 1 : 0
}
