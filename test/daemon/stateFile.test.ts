/** state.json (docs/architecture.md §5): files written before a field existed still load; the fields round-trip. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { readStateFile, writeStateFile } from "../../src/daemon/StateFile"
import { AppDefinition } from "../../src/domain/AppDefinition"
import { definitions, withTempDir } from "../support/engine"

/** A state.json as daemons wrote it before `web`, `webhooks` and `alerts` were saved. */
const oldStateJson = (definition: unknown) => ({
  version: 1,
  saved_at: "2026-01-01T00:00:00.000Z",
  killed: false,
  engine: {
    next_id: 1,
    apps: [
      {
        definition,
        env: { PATH: "/usr/bin:/bin" },
        rows: [{ id: 0, instance: 0, port: null, restarts: 2, desired: "running", pid: null, pid_start_time: null }]
      }
    ]
  }
})

describe("state.json", () => {
  it.effect("a file without webhooks and alerts loads, with its apps", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const [app] = yield* definitions([{ name: "api", script: "sleep", args: ["300"] }])
        const file = path.join(dir, "state.json")
        fs.writeFileSync(file, JSON.stringify(oldStateJson(Schema.encodeSync(AppDefinition)(app!))))
        const loaded = yield* readStateFile(file)
        expect(loaded._tag).toBe("Loaded")
        if (loaded._tag !== "Loaded") return
        expect(loaded.state.webhooks).toBeUndefined()
        expect(loaded.state.alerts).toBeUndefined()
        expect(loaded.state.engine.apps.map((saved) => saved.definition.name)).toEqual(["api"])
        // Not moved aside.
        expect(fs.existsSync(file)).toBe(true)
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("webhooks and alert thresholds are written and read back", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const file = path.join(dir, "state.json")
        const webhooks = [
          { enabled: false, url: "http://127.0.0.1:8080/hook", events: ["process_crash", "cpu_threshold"] as const }
        ]
        const alerts = {
          memory: 1024,
          cpu_percent: 75.5,
          cpu_duration: 2_000,
          restart_loop: { restarts: 3, window: 10_000 }
        }
        yield* writeStateFile(file, {
          version: 1,
          saved_at: new Date().toISOString(),
          killed: false,
          engine: { next_id: 0, apps: [] },
          webhooks,
          alerts
        })
        const loaded = yield* readStateFile(file)
        expect(loaded).toMatchObject({ _tag: "Loaded", state: { webhooks, alerts } })
      })
    )
  )
})
