/**
 * PM2's IPC keys (docs/configuration.md): `wait_ready` keeps a process `starting` until it sends
 * 'ready' — or `listen_timeout` passes, when PM2 goes on too — and `shutdown_with_message` stops it
 * with the 'shutdown' message instead of a signal. In fork mode and in cluster mode.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, isAlive, PATH_ENV, withEngine } from "../support/engine"
import { freeBase, httpGet, recordStates } from "./helpers"

const server = fixture("cluster-server.js")

const logHas = (pm: ProcessManager, target: string, message: string) =>
  Effect.map(pm.readLogs(target, { lines: 100 }), (lines) => lines.some((line) => line.message === message))

describe.each(["fork", "cluster"] as const)("%s mode", (mode) => {
  it.live("wait_ready: listening is not enough, the process is starting until it sends 'ready'", () =>
    withEngine((home) =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const readyFile = path.join(home, "go")
        const apps = yield* definitions([
          {
            name: "web",
            script: server,
            exec_mode: mode,
            wait_ready: true,
            listen_timeout: "60s",
            min_uptime: 0,
            env: { PORT: String(port), READY_FILE: readyFile }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        // It answers requests, and is still starting.
        yield* eventually(
          Effect.map(Effect.either(httpGet(`http://127.0.0.1:${port}/`)), (result) => result._tag === "Right"),
          "the app to answer"
        )
        yield* eventually(
          logHas(pm, "web", `instance 0 pid ${(yield* pm.list())[0]!.pid} listening on ${port}`),
          "its listening line"
        )
        expect((yield* pm.list())[0]!.status).toBe("starting")
        fs.writeFileSync(readyFile, "")
        const [row] = yield* pm.waitReady("web", 30_000)
        expect(row!.status).toBe("online")
        expect(yield* logHas(pm, "web", "sending ready")).toBe(true)
      })
    )
  )

  it.live("wait_ready without a 'ready': online once listen_timeout has passed", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const apps = yield* definitions([
          {
            name: "web",
            script: server,
            exec_mode: mode,
            wait_ready: true,
            listen_timeout: "1500ms",
            min_uptime: 0,
            env: { PORT: String(port) }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const states = yield* recordStates(pm, "web")
        const [row] = yield* pm.waitReady("web", 30_000)
        expect(row!.status).toBe("online")
        expect(states.some((state) => state.status === "starting" && state.pid === row!.pid)).toBe(true)
        expect(yield* logHas(pm, "web", "sending ready")).toBe(false)
      })
    )
  )

  it.live("shutdown_with_message: stop sends 'shutdown' (no signal), and the process ends", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = freeBase()
        const apps = yield* definitions([
          {
            name: "web",
            script: server,
            exec_mode: mode,
            shutdown_with_message: true,
            min_uptime: 0,
            env: { PORT: String(port) }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const [row] = yield* pm.waitReady("web", 30_000)
        yield* eventually(logHas(pm, "web", `instance 0 pid ${row!.pid} listening on ${port}`), "its listening line")
        const [stopped] = yield* pm.stop("web")
        expect(stopped!.status).toBe("stopped")
        expect(isAlive(row!.pid!)).toBe(false)
        yield* eventually(logHas(pm, "web", "got shutdown message"), "the shutdown line")
        const lines = (yield* pm.readLogs("web", { lines: 100 })).map((line) => line.message)
        expect(lines.filter((line) => line.startsWith("got "))).toEqual(["got shutdown message"])
      })
    )
  )
})
