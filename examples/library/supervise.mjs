// Runs the pmfx engine inside a plain Node program — no daemon, no CLI.
// It loads examples/ecosystem.json, starts the worker and the API server, waits until the API is
// online and healthy, reads some logs, prints the process table, and shuts everything down.
//
//   npm install && node examples/library/supervise.mjs
import { Effect, Layer } from "effect"
import { ConfigLoader, Engine, ProcessManager } from "pmfx"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
// Everything pmfx writes (logs, pid files) goes here; a real program would use its own folder.
const home = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-library-"))

const program = Effect.gen(function* () {
  const loader = yield* ConfigLoader
  const manager = yield* ProcessManager

  const { apps } = yield* loader.loadFile(path.join(examples, "ecosystem.json"), { environment: process.env })
  const wanted = apps.filter((app) => app.name === "api" || app.name === "worker")
  yield* manager.create(wanted, { baseEnv: { PATH: process.env.PATH ?? "" } })

  // Completes once both API instances are online and their health checks pass.
  yield* manager.waitReady("api", 30_000)
  const response = yield* Effect.promise(() => fetch("http://127.0.0.1:4000/").then((r) => r.json()))
  console.log("GET http://127.0.0.1:4000/ →", JSON.stringify(response))

  const lines = yield* manager.readLogs("api", { lines: 2 })
  for (const line of lines) console.log(`log [${line.app}/${line.instance} ${line.stream}] ${line.message}`)

  for (const row of yield* manager.list()) {
    console.log(`${row.id}  ${row.name.padEnd(8)} ${row.status.padEnd(9)} pid ${row.pid}  port ${row.port ?? "-"}  health ${row.health_status}`)
  }
  // Leaving the scope stops every process (SIGTERM, then SIGKILL after kill_timeout).
})

await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(Engine.at(home), ConfigLoader.Default))))
fs.rmSync(home, { recursive: true, force: true })
console.log("all processes stopped")
