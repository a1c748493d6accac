/**
 * `extends` (docs/architecture.md §6, docs/configuration.md §3): a base file merged under the file (apps merged by name, objects
 * such as `env` key by key) or under one app; paths relative to the extending file; chains; cycles
 * and missing bases are INVALID_CONFIG.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { mergeEcosystems, mergeSettings } from "../../src/config/mergeSettings"
import { ecosystem, loadFiles, loadFilesError } from "./helpers"

describe("extends at the top of a file", () => {
  it.effect("apps merge by name, env key by key; new apps come after the base's", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "base.json": ecosystem(
            {
              name: "api",
              script: "./server.js",
              instances: 2,
              env: { NODE_ENV: "production", LOG: "info" },
              kill_timeout: "3s"
            },
            { name: "worker", script: "./worker.js" }
          ),
          "prod.yaml": [
            "extends: ./base.json",
            "apps:",
            "  - name: api",
            "    instances: 4",
            "    env:",
            "      LOG: debug",
            "      EXTRA: 'yes'",
            "  - name: cron",
            "    script: ./cron.js",
            ""
          ].join("\n")
        },
        "prod.yaml"
      )
      const dir = path.dirname(loaded.file!)
      expect(loaded.apps.map((a) => a.name)).toEqual(["api", "worker", "cron"])
      const [api, worker, cron] = loaded.apps
      expect(api).toMatchObject({
        script: path.join(dir, "server.js"),
        instances: 4,
        kill_timeout: 3000,
        env: { NODE_ENV: "production", LOG: "debug", EXTRA: "yes" }
      })
      expect(worker!.script).toBe(path.join(dir, "worker.js"))
      expect(cron!.script).toBe(path.join(dir, "cron.js"))
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a file with only extends (no apps of its own) is its base", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "base.toml": '[[apps]]\nname = "api"\nscript = "a.js"\n', "pmfx.json": { extends: "./base.toml" } },
        "pmfx.json"
      )
      expect(loaded.apps.map((a) => a.name)).toEqual(["api"])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a chain of two: each base relative to the file that extends it", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "shared/root.json": ecosystem({
            name: "api",
            script: "./server.js",
            env: { A: "root", B: "root", C: "root" }
          }),
          "shared/team/middle.json": {
            extends: "../root.json",
            apps: [{ name: "api", env: { B: "middle", C: "middle" } }]
          },
          "deploy/pmfx.json": { extends: "../shared/team/middle.json", apps: [{ name: "api", env: { C: "top" } }] }
        },
        "deploy/pmfx.json"
      )
      const api = loaded.apps[0]!
      expect(api.env).toEqual({ A: "root", B: "middle", C: "top" })
      expect(path.basename(api.script)).toBe("server.js")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an app of the base extending its own base: that path is relative to the base's file", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "shared/node-defaults.json": { kill_timeout: "7s", env: { NODE_ENV: "production" } },
          "shared/base.json": ecosystem({ name: "api", script: "a.js", extends: "./node-defaults.json" }),
          "pmfx.json": { extends: "./shared/base.json", apps: [{ name: "api", env: { PORT: "1" } }] }
        },
        "pmfx.json"
      )
      expect(loaded.apps[0]).toMatchObject({ kill_timeout: 7000, env: { NODE_ENV: "production", PORT: "1" } })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("webhooks and alerts merge too", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "base.json": { apps: [{ name: "api", script: "a.js" }], alerts: { memory: "1G", cpu_percent: 90 } },
          "pmfx.json": {
            extends: "base.json",
            alerts: { cpu_percent: 80 },
            webhooks: [{ url: "http://127.0.0.1:9/hook" }]
          }
        },
        "pmfx.json"
      )
      expect(loaded.alerts).toEqual({ memory: 1024 ** 3, cpu_percent: 80 })
      expect(loaded.webhooks).toEqual([
        {
          enabled: true,
          url: "http://127.0.0.1:9/hook",
          events: ["process_crash", "high_memory", "cpu_threshold", "restart_loop", "health_check_failure"]
        }
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a cycle is INVALID_CONFIG at field extends, saying so", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        {
          "a.json": { extends: "./b.json", apps: [{ name: "api", script: "a.js" }] },
          "b.json": { extends: "./a.json", apps: [] }
        },
        "a.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toEqual({
        field: "extends",
        value: "./a.json",
        suggestion: "remove the extends that points back",
        file: path.join(dir, "b.json"),
        problems: [
          {
            field: "extends",
            value: "./a.json",
            message: "extends forms a cycle: a.json → b.json → a.json",
            suggestion: "remove the extends that points back"
          }
        ]
      })
      expect(error.message).toContain("cycle")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a file extending itself is a cycle", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError({ "pmfx.json": { extends: "pmfx.json", apps: [] } }, "pmfx.json")
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "extends", value: "pmfx.json" })
      expect(error.message).toContain("extends forms a cycle: pmfx.json → pmfx.json")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing base file is INVALID_CONFIG at field extends", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": { extends: "./nope/base.json", apps: [] } },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toEqual({
        field: "extends",
        value: "./nope/base.json",
        suggestion: "check the path; it is relative to the file that extends it",
        file: path.join(dir, "pmfx.json"),
        problems: [
          {
            field: "extends",
            value: "./nope/base.json",
            message: `base file ${path.join(dir, "nope/base.json")} does not exist`,
            suggestion: "check the path; it is relative to the file that extends it"
          }
        ]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("extends that is not a path is INVALID_CONFIG", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError({ "pmfx.json": { extends: 42, apps: [] } }, "pmfx.json")
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "extends", value: 42 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a base with a syntax error is CONFIG_PARSE_ERROR naming the base", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "base.json": '{ "apps": [ }', "pmfx.json": { extends: "base.json" } },
        "pmfx.json"
      )
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toMatchObject({ file: path.join(dir, "base.json"), line: 1 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("extends in one app", () => {
  it.effect("a base of plain settings is merged under the app", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "common/node.json": {
            script: "./server.js",
            max_memory_restart: "256M",
            env: { NODE_ENV: "production", A: "1" }
          },
          "pmfx.json": ecosystem(
            { name: "api", extends: "./common/node.json", env: { A: "2" } },
            { name: "worker", script: "./worker.js", extends: "common/node.json", max_memory_restart: "1G" }
          )
        },
        "pmfx.json"
      )
      const dir = path.dirname(loaded.file!)
      const [api, worker] = loaded.apps
      expect(path.basename(api!.script)).toBe("server.js")
      expect(api).toMatchObject({
        name: "api",
        max_memory_restart: 256 * 1024 ** 2,
        env: { NODE_ENV: "production", A: "2" }
      })
      expect(worker).toMatchObject({
        name: "worker",
        script: path.join(dir, "worker.js"),
        max_memory_restart: 1024 ** 3
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a base ecosystem file lends its same-named app", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "base.yaml":
            "apps:\n  - name: other\n    script: other.js\n  - name: api\n    script: api.js\n    instances: 3\n",
          "pmfx.json": ecosystem({ name: "api", extends: "./base.yaml", port: "3000-3002" })
        },
        "pmfx.json"
      )
      expect(loaded.apps).toHaveLength(1)
      expect(loaded.apps[0]).toMatchObject({ name: "api", instances: 3, port: "3000-3002" })
      expect(path.basename(loaded.apps[0]!.script)).toBe("api.js")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a chain of two per-app bases, each relative to its own file", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "lib/base.json": { script: "./server.js", env: { A: "base", B: "base" }, kill_timeout: "9s" },
          "lib/mid/node.json": { extends: "../base.json", env: { B: "mid" }, instances: 2 },
          "pmfx.json": ecosystem({ name: "api", extends: "./lib/mid/node.json", env: { C: "app" } })
        },
        "pmfx.json"
      )
      expect(loaded.apps[0]).toMatchObject({ instances: 2, kill_timeout: 9000, env: { A: "base", B: "mid", C: "app" } })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a cycle is INVALID_CONFIG at field apps[i].extends", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        {
          "a.json": { extends: "./b.json", script: "a.js" },
          "b.json": { extends: "./a.json" },
          "pmfx.json": ecosystem({ name: "ok", script: "ok.js" }, { name: "api", extends: "./a.json" })
        },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[1].extends", value: "./a.json" })
      if (error._tag !== "INVALID_CONFIG") return
      expect(error.details.problems).toHaveLength(1)
      expect(error.details.problems?.[0]?.message).toBe("extends forms a cycle: a.json → b.json → a.json")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing base file is INVALID_CONFIG at field apps[i].extends", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", extends: "./missing.json" }) },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({
        field: "apps[0].extends",
        value: "./missing.json",
        file: path.join(dir, "pmfx.json"),
        problems: [expect.objectContaining({ message: `base file ${path.join(dir, "missing.json")} does not exist` })]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a base ecosystem without the app's name is INVALID_CONFIG", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        {
          "base.json": ecosystem({ name: "one", script: "1.js" }, { name: "two", script: "2.js" }),
          "pmfx.json": ecosystem({ name: "three", extends: "base.json" })
        },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].extends", value: "base.json" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("mergeSettings", () => {
  it("objects merge key by key; arrays, strings and numbers are replaced", () => {
    expect(
      mergeSettings(
        { env: { A: "1", B: "2" }, args: ["a", "b"], instances: 2, health_check: { url: "http://x/", retries: 5 } },
        { env: { B: "3" }, args: ["c"], health_check: { retries: 1 } }
      )
    ).toEqual({ env: { A: "1", B: "3" }, args: ["c"], instances: 2, health_check: { url: "http://x/", retries: 1 } })
  })

  it("apps merge by name; unnamed apps are added", () => {
    expect(
      mergeEcosystems(
        {
          apps: [
            { name: "a", script: "a.js" },
            { name: "b", script: "b.js" }
          ],
          alerts: { memory: "1G" }
        },
        { apps: [{ name: "b", instances: 2 }, { script: "c.js" }], alerts: { cpu_percent: 50 } }
      )
    ).toEqual({
      apps: [{ name: "a", script: "a.js" }, { name: "b", script: "b.js", instances: 2 }, { script: "c.js" }],
      alerts: { memory: "1G", cpu_percent: 50 }
    })
  })
})
