/** Cluster mode (docs/configuration.md, "exec_mode"): workers of one node:cluster primary on one port. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, isAlive, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { startHammer } from "../support/hammer"
import { eventsOf, freeBase } from "./helpers"

const server = fixture("cluster-server.js")

/** Live children of a process (from /proc/<pid>/task/<pid>/children). */
const childrenOf = (pid: number): Array<number> =>
  fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter((p) => p !== "")
    .map(Number)
    .filter(isAlive)

const logHasLine = (pm: ProcessManager, target: string, message: string) =>
  Effect.map(pm.readLogs(target, { lines: 100 }), (lines) => lines.some((line) => line.message === message))

/** The parent pid of a live process (/proc/<pid>/stat field 4). */
const parentOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

const clusterApp = (name: string, port: number, extra: object = {}) => ({
  name,
  script: server,
  exec_mode: "cluster",
  env: { PORT: String(port) },
  min_uptime: 0,
  kill_timeout: "3s",
  ...extra
})

/** One GET on a new connection (the primary hands each connection to the next worker). */
const getOnce = (port: number, url = "/") =>
  Effect.async<string, Error>((resume) => {
    const request = http.get({ host: "127.0.0.1", port, path: url, agent: false }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resume(Effect.succeed(body)))
    })
    request.on("error", (error) => resume(Effect.fail(error)))
  })

/** Pids that answer on the port, over as many new connections. */
const answeringPids = (port: number, requests: number) =>
  Effect.gen(function* () {
    const pids = new Set<number>()
    for (let i = 0; i < requests; i++) pids.add((JSON.parse(yield* getOnce(port)) as { pid: number }).pid)
    return pids
  })

describe("cluster mode", () => {
  it.live(
    "workers share one port, each a row with its own pid, instance and logs; stop and delete end the primary and every worker",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const port = freeBase()
          yield* pm.create(yield* definitions([clusterApp("web", port, { instances: 3 })]), { baseEnv: PATH_ENV })
          const rows = yield* pm.waitReady("web", 30_000)
          expect(rows.map((row) => [row.name, row.instance, row.status])).toEqual([
            ["web", 0, "online"],
            ["web", 1, "online"],
            ["web", 2, "online"]
          ])
          const pids = rows.map((row) => row.pid!)
          expect(new Set(pids).size).toBe(3)
          const primary = parentOf(pids[0]!)
          expect(pids.every((pid) => parentOf(pid) === primary)).toBe(true)
          expect(fs.readFileSync(`/proc/${primary}/cmdline`, "utf8")).toContain("pmfx cluster primary web")
          // Round-robin over the workers, all on the one port.
          yield* eventually(
            Effect.map(answeringPids(port, 9), (seen) => [...seen].sort().join() === [...pids].sort().join()),
            "every worker to answer"
          )
          // Each worker's own log, with its NODE_APP_INSTANCE.
          for (const row of rows) {
            yield* eventually(
              Effect.map(pm.readLogs(String(row.id)), (lines) =>
                lines.some((line) => line.message === `instance ${row.instance} pid ${row.pid} listening on ${port}`)
              ),
              `worker ${row.instance}'s log line`
            )
          }
          yield* eventually(
            Effect.map(pm.list(), (list) => list.every((row) => row.memory_usage > 0)),
            "memory of every worker"
          )

          const stopped = yield* pm.stop("web")
          expect(stopped.map((row) => row.status)).toEqual(["stopped", "stopped", "stopped"])
          for (const pid of [...pids, primary]) expect(isAlive(pid)).toBe(false)

          yield* pm.start("web")
          const again = yield* pm.waitReady("web", 30_000)
          const secondPrimary = parentOf(again[0]!.pid!)
          expect(secondPrimary).not.toBe(primary)
          const deleted = yield* pm.delete("web")
          expect(deleted).toEqual(rows.map((row) => row.id))
          for (const pid of [...again.map((row) => row.pid!), secondPrimary]) expect(isAlive(pid)).toBe(false)
        })
      )
  )

  it.live("a crashed worker is replaced under the restart policy; the others and the primary keep running", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const port = freeBase()
        yield* pm.create(yield* definitions([clusterApp("web", port, { instances: 2 })]), { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("web", 30_000)
        const primary = parentOf(before[0]!.pid!)
        expect(yield* getOnce(port, "/crash")).toBe("bye")
        yield* eventually(
          Effect.map(pm.list(), (rows) => rows.some((row) => row.restarts === 1 && row.status === "online")),
          "the crashed worker to be replaced"
        )
        const after = yield* pm.list()
        const replaced = after.find((row) => row.restarts === 1)!
        const other = after.find((row) => row.restarts === 0)!
        expect(other.pid).toBe(before.find((row) => row.id === other.id)!.pid)
        expect(replaced.pid).not.toBe(before.find((row) => row.id === replaced.id)!.pid)
        expect(parentOf(replaced.pid!)).toBe(primary)
        const exit = eventsOf(events, "ProcessExit", "web").find((event) => event.id === replaced.id)
        expect(exit).toMatchObject({ exit_code: 3, abnormal: true })
        expect(eventsOf(events, "ProcessRestart", "web").map((event) => [event.id, event.reason])).toEqual([
          [replaced.id, "crash"]
        ])
      })
    )
  )

  it.live("the primary's death restarts the app: every worker replaced under a new primary", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        yield* pm.create(yield* definitions([clusterApp("web", port, { instances: 2 })]), { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("web", 30_000)
        const primary = parentOf(before[0]!.pid!)
        process.kill(primary, "SIGKILL")
        yield* eventually(
          Effect.map(pm.list(), (rows) => rows.every((row) => row.status === "online" && row.restarts === 1)),
          "both workers to come back"
        )
        const after = yield* pm.list()
        const newPrimary = parentOf(after[0]!.pid!)
        expect(newPrimary).not.toBe(primary)
        expect(after.every((row) => parentOf(row.pid!) === newPrimary)).toBe(true)
        for (const row of before) expect(isAlive(row.pid!)).toBe(false)
        const served = yield* answeringPids(port, 4)
        expect([...served].every((pid) => after.some((row) => row.pid === pid))).toBe(true)
      })
    )
  )

  it.live(
    "reload of 4 workers under load: each replacement listens before the old worker gets SIGINT; zero failed requests",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const events = yield* recordEvents()
          const port = freeBase()
          yield* pm.create(yield* definitions([clusterApp("web", port, { instances: 4 })]), { baseEnv: PATH_ENV })
          const before = yield* pm.waitReady("web", 30_000)
          const primary = parentOf(before[0]!.pid!)
          const hammer = startHammer(port, { keepAlive: 8, fresh: 4 })
          yield* eventually(
            Effect.sync(() => hammer.served() > 200),
            "the load to run"
          )
          const servedBefore = hammer.served()
          const result = yield* pm.reload("web")
          yield* eventually(
            Effect.sync(() => hammer.served() > servedBefore + 200),
            "the load to go on after the reload"
          )
          const counts = yield* Effect.promise(() => hammer.stop())

          expect(counts).toMatchObject({ errors: 0, resets: 0, bad: 0 })
          expect(result.restartedInstead).toEqual([])
          expect(result.rows.map((row) => [row.id, row.status, row.restarts])).toEqual(
            before.map((row) => [row.id, "online", 1])
          )
          for (const [i, row] of result.rows.entries()) {
            expect(row.pid).not.toBe(before[i]!.pid)
            expect(parentOf(row.pid!)).toBe(primary)
          }
          for (const row of before) expect(isAlive(row.pid!)).toBe(false)
          // The old worker of each instance got SIGINT after its replacement listened (as the
          // processes' own clocks tell: the daemon may read two pipes in either order).
          for (const row of before) {
            const stamps = (prefix: string) =>
              Effect.map(pm.readLogs(String(row.id), { lines: 100 }), (lines) =>
                lines.flatMap((line) =>
                  line.message.startsWith(prefix) ? [Number(line.message.slice(prefix.length))] : []
                )
              )
            yield* eventually(
              Effect.map(stamps("stopping at "), (found) => found.length === 1),
              `instance ${row.instance}'s old worker's stop line`
            )
            yield* eventually(
              Effect.map(stamps("listening at "), (found) => found.length === 2),
              `instance ${row.instance}'s two listening lines`
            )
            const [stopped] = yield* stamps("stopping at ")
            expect(stopped!).toBeGreaterThanOrEqual(Math.max(...(yield* stamps("listening at "))))
            expect(yield* logHasLine(pm, String(row.id), "got SIGINT")).toBe(true)
          }
          expect(eventsOf(events, "ProcessRestart", "web").map((event) => [event.id, event.reason])).toEqual(
            before.map((row) => [row.id, "reload"])
          )
        })
      ),
    120_000
  )
  it.live("a script without an extension (./bin/www) runs in cluster mode on Node, as with PM2", () =>
    withEngine((home) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const www = path.join(home, "www")
        fs.writeFileSync(www, `#!/usr/bin/env node\n${fs.readFileSync(server, "utf8")}`, { mode: 0o755 })
        yield* pm.create(yield* definitions([{ ...clusterApp("www", port, { instances: 2 }), script: www }]), {
          baseEnv: PATH_ENV
        })
        const rows = yield* pm.waitReady("www", 30_000)
        const pids = yield* answeringPids(port, 8)
        expect([...pids].sort()).toEqual(rows.map((row) => row.pid!).sort())
      })
    )
  )

  it.live(
    "a reload whose new worker exits at once stops at that worker and says why; the old workers keep serving",
    () =>
      withEngine((home) =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const port = freeBase()
          const broken = path.join(home, "broken")
          yield* pm.create(
            yield* definitions([
              clusterApp("web", port, { instances: 2, env: { PORT: String(port), EXIT_FILE: broken } })
            ]),
            {
              baseEnv: PATH_ENV
            }
          )
          const before = yield* pm.waitReady("web", 30_000)
          fs.writeFileSync(broken, "")
          const error = yield* Effect.flip(pm.reload("web"))
          expect(error._tag).toBe("PROCESS_START_FAILED")
          if (error._tag === "PROCESS_START_FAILED")
            expect(error.details.reason).toBe("instance 0 exited (code 1) before it was ready")
          const rows = yield* pm.resolve("web")
          expect(rows.map((row) => [row.pid, row.status])).toEqual(before.map((row) => [row.pid, "online"]))
          const pids = yield* answeringPids(port, 6)
          expect([...pids].sort()).toEqual(before.map((row) => row.pid!).sort())
        })
      )
  )

  it.live("reload with wait_ready: the old worker keeps running until its replacement sends 'ready'", () =>
    withEngine((home) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const readyFile = path.join(home, "go")
        fs.writeFileSync(readyFile, "")
        yield* pm.create(
          yield* definitions([
            clusterApp("web", port, {
              instances: 2,
              wait_ready: true,
              listen_timeout: "60s",
              env: { PORT: String(port), READY_FILE: readyFile }
            })
          ]),
          {
            baseEnv: PATH_ENV
          }
        )
        const before = yield* pm.waitReady("web", 30_000)
        const primary = parentOf(before[0]!.pid!)
        fs.rmSync(readyFile)
        const reload = yield* Effect.fork(pm.reload("web"))
        // The replacement of instance 0 runs (listening, not ready) beside both old workers.
        yield* eventually(
          Effect.sync(() => childrenOf(primary).length === 3),
          "the first replacement to be forked"
        )
        const replacement = childrenOf(primary).find((pid) => !before.some((row) => row.pid === pid))!
        yield* eventually(
          logHasLine(pm, String(before[0]!.id), `instance 0 pid ${replacement} listening on ${port}`),
          "the replacement to listen"
        )
        expect(before.every((row) => isAlive(row.pid!))).toBe(true)
        fs.writeFileSync(readyFile, "")
        const result = yield* Fiber.join(reload)
        expect(result.rows.map((row) => row.status)).toEqual(["online", "online"])
        expect(result.rows[0]!.pid).toBe(replacement)
        for (const row of before) expect(isAlive(row.pid!)).toBe(false)
      })
    )
  )
  it.live("node_args reach every worker (its execArgv) and instance_var names the instance variable", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        yield* pm.create(
          yield* definitions([
            clusterApp("web", port, { instances: 2, node_args: "--max-old-space-size=200", instance_var: "WORKER_ID" })
          ]),
          {
            baseEnv: PATH_ENV
          }
        )
        const rows = yield* pm.waitReady("web", 30_000)
        for (const row of rows) {
          expect(fs.readFileSync(`/proc/${row.pid}/cmdline`, "utf8").split("\0")).toContain("--max-old-space-size=200")
          const environ = fs.readFileSync(`/proc/${row.pid}/environ`, "utf8").split("\0")
          expect(environ).toContain(`WORKER_ID=${row.instance}`)
        }
        // The primary itself runs without the app's flags.
        expect(fs.readFileSync(`/proc/${parentOf(rows[0]!.pid!)}/cmdline`, "utf8")).not.toContain(
          "--max-old-space-size"
        )
      })
    )
  )
})
