/** state.json (docs/architecture.md §5): files written before a field existed still load; the fields round-trip. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { readStateFile, StateFileContent, stateFileText, writeStateFile } from "../../src/daemon/StateFile"
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

  /** An app that sets every kind of setting: nested structs, unions, arrays, nulls and defaults. */
  const richApp = {
    name: "rich api",
    namespace: "web",
    script: "server.js",
    args: ["--port", "8080"],
    interpreter_args: ["--max-old-space-size=64"],
    instances: 2,
    port: "3100-3101",
    env: { NODE_ENV: "production", EMPTY: "" },
    max_memory_restart: "200M",
    min_uptime: "2s",
    kill_timeout: 3000,
    kill_signal: "SIGINT",
    watch: ["src", "lib"],
    ignore_watch: ["node_modules"],
    watch_options: { usePolling: true, interval: 500 },
    out_file: "/tmp/rich-out.log",
    merge_logs: true,
    max_log_size: "10M",
    max_log_files: 3,
    health_check: { url: "http://127.0.0.1:3100/health", interval: "10s" },
    alerts: { memory: "100M", restart_loop: { restarts: 3, window: "1m" } },
    stop_exit_codes: [0, 3],
    cron_restart: "0 3 * * *",
    filter_env: ["SECRET"],
    source_map_support: false
  }

  it.effect("a definition encodes to itself, so a save writes definitions as they are", () =>
    Effect.gen(function* () {
      const apps = yield* definitions([richApp, { name: "plain", script: "sleep", args: ["300"] }])
      for (const app of apps) expect(Schema.encodeSync(AppDefinition)(app)).toEqual(app)
      const state: StateFileContent = {
        version: 1,
        saved_at: "2026-11-26T00:00:00.000Z",
        killed: false,
        engine: {
          next_id: 3,
          apps: apps.map((definition, i) => ({
            definition,
            env: { PATH: "/usr/bin:/bin", HOME: "/root" },
            rows: [
              {
                id: i,
                instance: 0,
                port: null,
                restarts: 0,
                desired: "running",
                pid: 4242,
                pid_start_time: 17,
                started_at: 1,
                pipes: "p-1"
              }
            ]
          }))
        }
      }
      // The same content as encoding the whole state through its schema (keys may come in another order).
      expect(JSON.parse(stateFileText(state))).toStrictEqual(
        JSON.parse(JSON.stringify(Schema.encodeSync(StateFileContent)(state)))
      )
      expect(Schema.decodeUnknownSync(StateFileContent)(JSON.parse(stateFileText(state)))).toEqual(state)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a row that does not fit its schema is still refused when saving, and the file is left as it was", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const file = path.join(dir, "state.json")
        fs.writeFileSync(file, "{}")
        const bad = {
          version: 1,
          saved_at: "2026-11-26T00:00:00.000Z",
          killed: false,
          engine: {
            next_id: 1,
            apps: [
              {
                definition: {},
                env: {},
                rows: [
                  { id: 0.5, instance: 0, port: null, restarts: 0, desired: "running", pid: null, pid_start_time: null }
                ]
              }
            ]
          }
        } as unknown as StateFileContent
        const exit = yield* Effect.exit(writeStateFile(file, bad))
        expect(exit._tag).toBe("Failure")
        expect(fs.readFileSync(file, "utf8")).toBe("{}")
      })
    )
  )
})
