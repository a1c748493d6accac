// PM2 for the side-by-side benchmark (bench/vsPm2.mjs): installed on demand with
// `npm install --no-save pm2@7` into a temporary folder, run with its own PM2_HOME inside it, and
// removed afterwards (`pm2 kill`, SIGKILL to anything of that PM2_HOME still alive, rm -rf).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as L from "./lib.mjs"

/**
 * Installs PM2 7 into a fresh temporary folder. Returns the harness, or throws with a message
 * that says what to do when npm cannot install it (offline, no registry).
 */
export const installPm2 = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-vs-pm2-"))
  const home = path.join(dir, "pm2-home")
  fs.mkdirSync(home)
  const harness = makeHarness(dir, home)
  L.log(`installing PM2 7 into ${dir} (npm install --no-save pm2@7) ...`)
  const r = spawnSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "pm2@7"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 300_000
  })
  if (r.status !== 0 || !fs.existsSync(harness.bin)) {
    harness.cleanup()
    const why = (r.error?.message ?? r.stderr ?? "").trim().split("\n").slice(-5).join("\n  ")
    throw new Error(
      `PM2 could not be installed (npm install --no-save pm2@7 exited ${r.status}):\n  ${why}\n` +
        `The comparison needs the npm registry; check the network or npm's proxy settings, or run ` +
        `\`npm run bench\` for pmfx's own budgets only.`
    )
  }
  return harness
}

const makeHarness = (dir, home) => {
  const bin = path.join(dir, "node_modules", "pm2", "bin", "pm2")
  const env = { ...process.env, PM2_HOME: home, PM2_DISCRETE_MODE: "true" }
  delete env.PMFX_HOME
  // As for pmfx's side (vsPm2.mjs): no certificate bundle read at every Node start PM2 makes.
  delete env.NODE_EXTRA_CA_CERTS
  let cleaned = false
  const run = (args, timeout = 120_000) => {
    const t0 = L.now()
    const r = spawnSync(L.NODE, [bin, ...args], { env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 })
    return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms: L.now() - t0 }
  }
  const must = (args) => {
    const r = run(args)
    if (r.status !== 0) throw new Error(`pm2 ${args.join(" ")} exited ${r.status}: ${r.stderr || r.stdout}`)
    return r
  }
  return {
    dir,
    home,
    bin,
    env,
    run,
    must,
    version: () => run(["--version"]).stdout.trim().split("\n").pop(),
    daemonPid: () => Number(fs.readFileSync(path.join(home, "pm2.pid"), "utf8").trim()),
    jlist: () => JSON.parse(must(["jlist"]).stdout.trim().split("\n").pop()),
    /** Waits until `count` processes (optionally with a name prefix) are online. */
    waitOnline: (count, prefix = "", timeoutMs = 120_000) =>
      L.waitFor(
        `${count} PM2 processes online`,
        () => {
          const rows = JSON.parse(must(["jlist"]).stdout.trim().split("\n").pop()).filter((p) =>
            p.name.startsWith(prefix)
          )
          return rows.length >= count && rows.every((p) => p.pm2_env.status === "online")
        },
        timeoutMs,
        250
      ),
    cleanup: () => {
      if (cleaned) return
      cleaned = true
      if (fs.existsSync(bin)) run(["kill"], 60_000)
      const left = L.processesWithEnv("PM2_HOME", home).filter(L.isAlive)
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
