import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { Engine } from "../../src/supervisor/Engine"
import { EngineSnapshot } from "../../src/supervisor/EngineSnapshot"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, isAlive, PATH_ENV, withTempDir } from "../support/engine"
import { randomPortBase } from "../support/ports"

const inEngine = <A, E>(home: string, body: Effect.Effect<A, E, ProcessManager | ConfigLoader>) =>
  body.pipe(Effect.provide(Layer.merge(Engine.at(home, { metricsIntervalMs: 250 }), ConfigLoader.Default)))

describe("snapshot and restore", () => {
  it.live("a new engine restores ids, ports, restart counts and what the user wanted running", () =>
    withTempDir((home) =>
      Effect.gen(function* () {
        const base = randomPortBase(10)
        const { snapshot, pids } = yield* inEngine(
          home,
          Effect.gen(function* () {
            const pm = yield* ProcessManager
            const apps = yield* definitions([
              { name: "web", script: "sleep", args: ["300"], instances: 2, port: `${base}-${base + 1}` },
              { name: "idle", script: "sleep", args: ["300"] }
            ])
            yield* pm.create(apps, { baseEnv: { ...PATH_ENV, SECRET: "s" } })
            yield* pm.restart("1")
            yield* pm.stop("idle")
            const pids = (yield* pm.list()).map((row) => row.pid)
            return { snapshot: yield* pm.snapshot(), pids }
          })
        )
        // The first engine's scope closed: its processes are gone.
        expect(pids.filter((pid): pid is number => pid !== null).some(isAlive)).toBe(false)
        // The snapshot survives a JSON round trip (as state.json).
        const saved = Schema.decodeUnknownSync(EngineSnapshot)(
          JSON.parse(JSON.stringify(Schema.encodeSync(EngineSnapshot)(snapshot)))
        )
        expect(saved.next_id).toBe(3)
        expect(saved.apps.map((app) => app.env.SECRET)).toEqual(["s", "s"])
        expect(saved.apps[0]!.rows.map((row) => row.pid_start_time !== null)).toEqual([true, true])

        yield* inEngine(
          home,
          Effect.gen(function* () {
            const pm = yield* ProcessManager
            const restored = yield* pm.restore(saved)
            expect(restored.map((row) => [row.id, row.name, row.port, row.restarts])).toEqual([
              [0, "web", String(base), 0],
              [1, "web", String(base + 1), 1],
              [2, "idle", null, 0]
            ])
            const list = yield* pm.list()
            expect(list.map((row) => row.status)).toEqual(["online", "online", "stopped"])
            // New rows continue the saved counter.
            const more = yield* definitions([{ name: "more", script: "sleep", args: ["300"] }])
            const [added] = yield* pm.create(more, { baseEnv: PATH_ENV })
            expect(added!.id).toBe(3)
          })
        )
      })
    )
  )
})
