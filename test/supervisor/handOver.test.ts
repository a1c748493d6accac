import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { reclaimProcesses } from "../../src/daemon/reclaimProcesses"
import { Engine } from "../../src/supervisor/Engine"
import type { EngineSnapshot } from "../../src/supervisor/EngineSnapshot"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { processesWith } from "../support/daemon"
import { definitions, eventually, fixture, isAlive, PATH_ENV, withTempDir } from "../support/engine"
import { expectContiguous, tickNumbers } from "../support/tickLog"

const inEngine = <A, E>(home: string, body: Effect.Effect<A, E, ProcessManager | ConfigLoader>) =>
  body.pipe(Effect.provide(Layer.merge(Engine.at(home, { metricsIntervalMs: 250 }), ConfigLoader.Default)))

/** Engine 1 starts the app and hands it over; each later engine adopts it and may hand it on. */
const adoptIn = <E>(
  home: string,
  snapshot: EngineSnapshot,
  body: (pm: ProcessManager) => Effect.Effect<EngineSnapshot | null, E>
) =>
  Effect.gen(function* () {
    const reclaimed = yield* reclaimProcesses(snapshot, { held: new Set(), pipesDir: path.join(home, "pipes") })
    return yield* inEngine(
      home,
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        yield* pm.restore(snapshot, { adopt: reclaimed.adopt })
        return {
          adopted: [...reclaimed.adopt.values()].map((a) => a.pid),
          stopped: reclaimed.stopped,
          next: yield* body(pm)
        }
      })
    )
  })

describe("handing apps over to a new engine", () => {
  it.live(
    "the new engine adopts the running process: same pid, every line logged once, handed on again, restart works",
    () => {
      const marker = `pmfx-handover-${Math.random().toString(36).slice(2)}`
      // Whatever happens, no process of the test survives it (between engines, nobody owns it).
      const killLeft = Effect.sync(() => processesWith(marker).forEach((pid) => process.kill(pid, "SIGKILL")))
      return withTempDir((home) =>
        Effect.gen(function* () {
          const out = path.join(home, "logs", "counter-out.log")
          const lines = () => tickNumbers(out).length
          const { snapshot, pid } = yield* inEngine(
            home,
            Effect.gen(function* () {
              const pm = yield* ProcessManager
              const apps = yield* definitions([
                {
                  name: "counter",
                  script: fixture("counter.js"),
                  args: [marker],
                  env: { SPLIT: "1" },
                  min_uptime: "100ms",
                  merge_logs: true
                }
              ])
              yield* pm.create(apps, { baseEnv: PATH_ENV })
              yield* eventually(
                Effect.sync(() => fs.existsSync(out) && lines() > 20),
                "lines logged"
              )
              yield* pm.handOver()
              const [row] = yield* pm.list()
              return { snapshot: yield* pm.snapshot(), pid: row!.pid! }
            })
          )
          // The first engine is gone; its app is not.
          expect(isAlive(pid)).toBe(true)

          const whileAdopted = (pm: ProcessManager) =>
            Effect.gen(function* () {
              yield* pm.waitReady("counter", 20_000)
              const [row] = yield* pm.list()
              expect(row!.pid).toBe(pid)
              const before = lines()
              yield* eventually(
                Effect.sync(() => lines() > before + 20),
                "lines logged by the adopting engine"
              )
              expectContiguous(tickNumbers(out))
            })
          const second = yield* adoptIn(home, snapshot, (pm) =>
            Effect.zipRight(whileAdopted(pm), Effect.zipRight(pm.handOver(), pm.snapshot()))
          )
          expect(second.adopted).toEqual([pid])
          expect(second.stopped).toEqual([])
          expect(isAlive(pid)).toBe(true)

          const third = yield* adoptIn(home, second.next!, (pm) =>
            Effect.gen(function* () {
              yield* whileAdopted(pm)
              // The adopted process is restarted like any other.
              yield* pm.restart("counter")
              const [after] = yield* pm.list()
              expect(after!.pid).not.toBe(pid)
              expect(after!.restarts).toBe(1)
              yield* eventually(
                Effect.sync(() => !isAlive(pid)),
                "the adopted process stopped"
              )
              return null
            })
          )
          expect(third.adopted).toEqual([pid])
        }).pipe(Effect.ensuring(killLeft))
      )
    }
  )
})
