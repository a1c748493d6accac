import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, isAlive, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { randomPortBase } from "../support/ports"

const server = path.resolve(__dirname, "../../examples/apps/server.js")

describe("reload with auto: ports", () => {
  it.live("starts each replacement first on a new port, then stops the old process; ids stay", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const base = randomPortBase(10)
        const apps = yield* definitions([
          {
            name: "web",
            script: server,
            instances: 2,
            port: `auto:${base}-${base + 20}`,
            min_uptime: "200ms",
            health_check: { url: "http://127.0.0.1:{port}/health", interval: "300ms", timeout: "1s", retries: 3 }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const before = yield* pm.waitReady("web", 30_000)
        const events = yield* recordEvents()
        const { rows: after, restartedInstead } = yield* pm.reload("web")
        expect(restartedInstead).toEqual([])
        expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id))
        expect(after.every((r) => r.status === "online" && r.health_status === "healthy")).toBe(true)
        for (const [i, row] of after.entries()) {
          expect(row.pid).not.toBe(before[i]!.pid)
          expect(row.port).not.toBe(before[i]!.port)
          expect(row.restarts).toBe(1)
          expect(isAlive(before[i]!.pid!)).toBe(false)
        }
        yield* eventually(
          Effect.sync(() => events.filter((e) => e._tag === "ProcessRestart" && e.reason === "reload").length === 2),
          "two reload events"
        )
        // The id never looked stopped to a listener: no status event says so.
        expect(
          events.some((e) => e._tag === "ProcessStatus" && (e.status === "stopped" || e.status === "stopping"))
        ).toBe(false)

        expect((yield* pm.list()).map((r) => r.id)).toEqual([0, 1])
      })
    )
  )
})
