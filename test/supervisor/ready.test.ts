import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, isAlive, PATH_ENV, withEngine } from "../support/engine"
import { closedPort, freeBase } from "./helpers"

const server = path.resolve(__dirname, "../../examples/apps/server.js")

describe("waitReady", () => {
  it.live("resolves with the rows once every instance is online and its check passes", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const base = freeBase()
        const apps = yield* definitions([
          {
            name: "ready-web",
            script: server,
            instances: 2,
            port: `${base}-${base + 1}`,
            min_uptime: "300ms",
            health_check: { url: "http://127.0.0.1:{port}/health", interval: "1s", retries: 3 }
          }
        ])
        const created = yield* pm.create(apps, { baseEnv: PATH_ENV })
        expect(created.map((r) => r.status)).toEqual(["starting", "starting"])
        const rows = yield* pm.waitReady("ready-web", 30_000)
        expect(rows.map((r) => r.id)).toEqual(created.map((r) => r.id))
        expect(rows.map((r) => [r.status, r.health_status])).toEqual([
          ["online", "healthy"],
          ["online", "healthy"]
        ])
        expect(rows.map((r) => r.pid)).toEqual(created.map((r) => r.pid))
      })
    )
  )

  it.live("fails with READY_TIMEOUT when the check never passes, and leaves the daemon's state intact", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const port = yield* closedPort
        const apps = yield* definitions([
          {
            name: "never-ready",
            script: "sleep",
            args: ["300"],
            health_check: { url: `http://127.0.0.1:${port}/health`, interval: "10s", retries: 3 }
          },
          { name: "bystander", script: "sleep", args: ["300"] }
        ])
        const created = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const row = created.find((r) => r.name === "never-ready")!
        const started = Date.now()
        const error = yield* Effect.flip(pm.waitReady("never-ready", 1500))
        const elapsed = Date.now() - started
        expect(error._tag).toBe("READY_TIMEOUT")
        if (error._tag !== "READY_TIMEOUT") return
        expect(error.details.process_id).toBe("never-ready")
        expect(error.details.waited_ms).toBeGreaterThanOrEqual(1400)
        expect(error.details.waited_ms).toBeLessThanOrEqual(elapsed + 50)
        expect(error.details.states).toEqual({ [String(row.id)]: "starting" })
        // Nothing was disturbed: the table, the app and its process are all still there.
        const rows = yield* pm.list()
        expect(rows.map((r) => r.name)).toEqual(["never-ready", "bystander"])
        const after = yield* pm.get("never-ready")
        expect(after.pid).toBe(row.pid)
        expect(after.status).toBe("starting")
        expect(isAlive(row.pid!)).toBe(true)
        expect((yield* pm.waitReady("bystander", 30_000)).map((r) => r.status)).toEqual(["online"])
      })
    )
  )
})
