// `pmfx reload` against `pm2 reload` on the same 4-worker cluster app, with the same client, in one
// run (docs/benchmarks.md, "Cluster reload under load").
//
//   node bench/clusterReload.mjs                     pmfx only
//   PM2_BIN=/tmp/pm2/node_modules/pm2/bin/pm2 node bench/clusterReload.mjs     pmfx, then PM2
//
// The app is test/fixtures/cluster-server.js (HTTP on PORT; on SIGINT it stops accepting, answers
// its open connections with `Connection: close` and exits once they are gone), started from one
// PM2 ecosystem file — exec_mode cluster, 4 instances, kill_timeout 3 s — by each manager in turn.
// The client: 8 loops over keep-alive connections and 4 loops opening a new connection per request,
// all to 127.0.0.1:PORT, from this process. Each round: 2 s of load, the reload (timed from
// spawning the CLI to its exit), 2 s of load after. Reported per manager over ROUNDS rounds:
// requests served during the reload window and overall, errors (no answer: resets, refused,
// hang-ups), non-200 answers, and the reload time. PM2 runs with its own PM2_HOME in a temp folder
// and is killed (`pm2 kill`) at the end; pmfx with its own PMFX_HOME.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import * as L from "./lib.mjs"

const ROUNDS = 3
const WORKERS = 4
const server = path.join(L.ROOT, "test", "fixtures", "cluster-server.js")

/** The same client as test/support/hammer.ts. */
const startHammer = (port) => {
  let stopped = false
  const counts = { ok: 0, errors: 0, bad: 0, byError: {} }
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const one = (via) =>
    new Promise((resolve) => {
      const request = http.get({ host: "127.0.0.1", port, path: "/", agent: via }, (response) => {
        response.resume()
        response.on("end", () => {
          if (response.statusCode === 200) counts.ok++
          else counts.bad++
          resolve()
        })
      })
      // An answer that never comes counts as an error (10 s), not as a stalled client.
      request.setTimeout(10_000, () =>
        request.destroy(Object.assign(new Error("no answer within 10 s"), { code: "TIMEOUT" }))
      )
      request.on("error", (error) => {
        counts.errors++
        const key = error.code ?? error.message
        counts.byError[key] = (counts.byError[key] ?? 0) + 1
        resolve()
      })
    })
  const loop = async (via) => {
    while (!stopped) await one(via)
  }
  const loops = [...Array.from({ length: 8 }, () => loop(agent)), ...Array.from({ length: 4 }, () => loop(false))]
  return {
    counts,
    stop: async () => {
      stopped = true
      await Promise.all(loops)
      agent.destroy()
      return counts
    }
  }
}

/** Runs a command without blocking the event loop (the client keeps going); resolves with its wall time. */
const timed = (file, args, env) =>
  new Promise((resolve) => {
    const t0 = L.now()
    const child = spawn(file, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (code) => resolve({ code, ms: L.now() - t0, output }))
  })

const answers = (port) =>
  new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
      response.resume()
      resolve(response.statusCode === 200)
    })
    request.on("error", () => resolve(false))
  })

const writeEcosystem = (dir, port) => {
  const file = path.join(dir, "ecosystem.config.js")
  fs.writeFileSync(
    file,
    `module.exports = { apps: [{ name: "web", script: ${JSON.stringify(server)}, exec_mode: "cluster", instances: ${WORKERS}, kill_timeout: 3000, env: { PORT: ${port} } }] }\n`
  )
  return file
}

/** Load, reload, load; ROUNDS times. `reload()` runs the manager's reload command. */
const measure = async (label, port, reload) => {
  const rounds = []
  for (let round = 0; round < ROUNDS; round++) {
    const hammer = startHammer(port)
    await L.sleep(2_000)
    const before = hammer.counts.ok
    const result = await reload()
    const during = hammer.counts.ok - before
    await L.sleep(2_000)
    const counts = await hammer.stop()
    if (result.code !== 0) throw new Error(`${label} reload exited ${result.code}: ${result.output}`)
    rounds.push({
      reloadMs: result.ms,
      during,
      total: counts.ok,
      errors: counts.errors,
      bad: counts.bad,
      byError: counts.byError
    })
    L.log(
      `  ${label} round ${round + 1}: reload ${L.fmt(result.ms, 0)} ms, ${during} requests served during it, ${counts.ok} in the round, ${counts.errors} errors ${JSON.stringify(counts.byError)}, ${counts.bad} non-200`
    )
  }
  return rounds
}

const summary = (label, rounds) => [
  label,
  `${L.fmt(L.median(rounds.map((r) => r.reloadMs)), 0)} ms`,
  `${L.fmt(L.median(rounds.map((r) => r.during / (r.reloadMs / 1000))), 0)} req/s`,
  String(rounds.reduce((sum, r) => sum + r.total, 0)),
  String(rounds.reduce((sum, r) => sum + r.errors, 0)),
  String(rounds.reduce((sum, r) => sum + r.bad, 0))
]

L.log(
  `cluster reload: ${WORKERS} workers, ${ROUNDS} rounds each; node ${process.version}; ${os.cpus().length} CPUs; load average ${L.loadAverage()}`
)
const results = []
await L.withDaemon("cluster", async (home) => {
  const port = 20_000 + Math.floor(Math.random() * 10_000)
  const file = writeEcosystem(home, port)
  const started = L.cli(home, ["start", file])
  if (started.status !== 0) throw new Error(`pmfx start failed: ${started.stderr}`)
  await L.waitOnline(home, WORKERS, "web")
  await L.waitFor("the app to answer", () => answers(port))
  results.push(
    summary("pmfx", await measure("pmfx", port, () => timed(L.NODE, [L.CLI, "reload", "web"], L.homeEnv(home))))
  )
})

const pm2 = process.env.PM2_BIN
if (pm2 !== undefined) {
  const pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), "pm2-bench-home-"))
  const env = { ...process.env, PM2_HOME: pm2Home }
  const port = 20_000 + Math.floor(Math.random() * 10_000)
  try {
    const file = writeEcosystem(pm2Home, port)
    const started = spawnSync(L.NODE, [pm2, "start", file], { env, encoding: "utf8", timeout: 60_000 })
    if (started.status !== 0) throw new Error(`pm2 start failed: ${started.stderr}`)
    await L.waitFor("PM2's app to answer", () => answers(port), 60_000)
    await L.sleep(1_000)
    results.push(
      summary(
        "PM2 " + spawnSync(L.NODE, [pm2, "--version"], { env, encoding: "utf8" }).stdout.trim().split("\n").pop(),
        await measure("pm2", port, () => timed(L.NODE, [pm2, "reload", "web"], env))
      )
    )
  } finally {
    spawnSync(L.NODE, [pm2, "kill"], { env, stdio: "ignore", timeout: 60_000 })
    fs.rmSync(pm2Home, { recursive: true, force: true })
  }
} else {
  L.log("PM2_BIN not set: PM2 not measured")
}

L.log("")
L.log(
  L.table([
    ["manager", "reload (median)", "served during reload (median)", "served in all rounds", "errors", "non-200"],
    ...results
  ])
)
L.report(
  "cluster reload of 4 workers: 0 failed requests",
  results.map((r) => `${r[0]}: ${r[4]} errors, reload ${r[1]}`).join("; "),
  results[0]?.[4] === "0" ? "PASS" : "FAIL"
)
