// `npm run demo`: the example ecosystem under the pmfx daemon.
// Starts examples/ecosystem.json (an HTTP API with two instances and a health check, a worker that
// logs every second, a job that keeps failing) in a demo home (.tmp/demo), waits for the API,
// prints the process table and some logs. On a terminal it then follows the worker's logs until
// Ctrl-C; elsewhere (CI) it stops at once. Either way it ends with `pmfx kill`.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
// The executable users run (package.json "bin"): the CLI from its startup snapshot when it can.
const pmfx = path.join(root, "dist", "pmfx")
const home = path.join(root, ".tmp", "demo")
const env = { ...process.env, PMFX_HOME: home }
// A fresh demo each time: stop a daemon a previous demo may have left, and forget its apps.
spawnSync(pmfx, ["kill"], { stdio: "ignore", cwd: root, env })
fs.rmSync(home, { recursive: true, force: true })
fs.mkdirSync(home, { recursive: true, mode: 0o700 })

const show = (args) => console.log(`\n$ PMFX_HOME=.tmp/demo pmfx ${args.join(" ")}`)
const run = (args, { quiet = false } = {}) => {
  if (!quiet) show(args)
  return spawnSync(pmfx, args, {
    stdio: quiet ? "pipe" : "inherit",
    cwd: root,
    env,
    encoding: "utf8"
  })
}
const stop = () => run(["kill"])

process.on("SIGINT", () => {})

const started = run(["start", "examples/ecosystem.json"])
if (started.status !== 0) {
  console.error(`\npmfx start exited with ${started.status}; see above. (Are ports 4000-4001 free?)`)
  stop()
  process.exit(started.status ?? 1)
}
// The API becomes online once its health check passes.
const deadline = Date.now() + 30_000
for (;;) {
  const list = JSON.parse(run(["list", "--json"], { quiet: true }).stdout || "[]")
  const api = list.filter((row) => row.name === "api")
  if (api.length > 0 && api.every((row) => row.status === "online" && row.health_status === "healthy")) break
  if (Date.now() > deadline) {
    console.error("\nthe api did not become healthy within 30 s")
    break
  }
  await new Promise((resolve) => setTimeout(resolve, 250))
}
// The nightly job fails at once; pmfx restarts it with a growing delay and gives up after
// max_restarts (3), leaving it errored.
const jobDeadline = Date.now() + 15_000
while (Date.now() < jobDeadline) {
  const list = JSON.parse(run(["list", "--json"], { quiet: true }).stdout || "[]")
  if (list.some((row) => row.name === "nightly-job" && row.status === "errored")) break
  await new Promise((resolve) => setTimeout(resolve, 250))
}
run(["list"])
run(["logs", "worker", "--lines", "4"])
run(["logs", "nightly-job", "--error", "--lines", "2"])
// The same API over TCP on localhost:9615 (no key for the local demo: pmfx prints a warning).
run(["web", "--host", "localhost", "--port", "9615"])
console.log(`
Try, in another terminal (same demo home):
  PMFX_HOME=.tmp/demo npx pmfx list
  PMFX_HOME=.tmp/demo npx pmfx logs api --follow
  PMFX_HOME=.tmp/demo npx pmfx reload api
  PMFX_HOME=.tmp/demo npx pmfx monit
  curl http://127.0.0.1:4000/health
  open http://localhost:9615/ui/                  # the dashboard, in a browser
  curl http://localhost:9615/api/processes
  npx pmfx --url http://localhost:9615 list        # the same daemon, driven over TCP
  node -e 'const ws = new (require("ws"))("ws://localhost:9615/ws"); ws.on("message", (m) => console.log(String(m)))'`)

if (process.stdout.isTTY) {
  console.log("\nFollowing the worker's logs; press Ctrl-C to stop the demo.")
  show(["logs", "worker", "--follow", "--lines", "0"])
  const follow = spawn(pmfx, ["logs", "worker", "--follow", "--lines", "0"], {
    stdio: "inherit",
    cwd: root,
    env
  })
  await new Promise((resolve) => follow.once("exit", resolve))
}
stop()
