/**
 * PM2 compatibility (docs/architecture.md §4, §6): a PM2 `ecosystem.config.js` loads unchanged, PM2-only keys are
 * ignored with warnings, `--env <name>` selects `env_<name>` blocks, and `instances` follows PM2
 * (`max` or 0 = CPU count, -1 = CPU count minus one).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { ecosystem, examplesDir, load, loadFiles, loadFilesError } from "./helpers"

const pm2File = path.join(examplesDir, "pm2/ecosystem.config.js")

describe("the example PM2 file", () => {
  it.effect("loads unchanged: node_args, interpreter_args and time are honoured, the rest warned", () =>
    Effect.gen(function* () {
      const loaded = yield* load(pm2File, { cpus: 4 })
      expect(loaded.file).toBe(pm2File)
      expect(loaded.apps.map((a) => a.name)).toEqual(["web", "ticker"])
      expect(loaded.apps.map((a) => a.interpreter_args)).toEqual([["--max-old-space-size=256"], ["--trace-warnings"]])
      expect(loaded.apps[0]!.log_date_format).toBe("YYYY-MM-DDTHH:mm:ss.SSSZ")
      const warnings = loaded.warnings.join("\n")
      expect(warnings).toContain("deploy is ignored")
      // exec_mode is honoured (cluster mode), not ignored.
      expect(warnings).not.toContain("exec_mode")
      expect(loaded.apps.map((a) => a.exec_mode)).toEqual(["cluster", "fork"])
      expect(loaded.warnings).toHaveLength(1)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("without --env: env only, numbers as strings, instances max = the cpus option", () =>
    Effect.gen(function* () {
      const loaded = yield* load(pm2File, { cpus: 4 })
      const [web, ticker] = loaded.apps
      expect(web).toMatchObject({
        name: "web",
        script: path.join(examplesDir, "apps/server.js"),
        cwd: path.join(examplesDir, "pm2"),
        instances: 4,
        env: { NODE_ENV: "development", PORT: "5000" },
        max_memory_restart: 300 * 1024 * 1024,
        watch: false,
        watch_paths: [],
        merge_logs: true,
        interpreter: null,
        args: []
      })
      expect(ticker).toMatchObject({
        name: "ticker",
        script: path.join(examplesDir, "apps/worker.js"),
        instances: 1,
        autorestart: true,
        env: {}
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("--env production merges env_production over env", () =>
    Effect.gen(function* () {
      const loaded = yield* load(pm2File, { cpus: 4, envName: "production" })
      const [web, ticker] = loaded.apps
      expect(web!.env).toEqual({ NODE_ENV: "production", PORT: "5000" })
      expect(ticker!.env).toEqual({ TICK_MS: "5000" })
      expect(loaded.warnings).toHaveLength(1)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("instances max follows the cpus option", () =>
    Effect.gen(function* () {
      const one = yield* load(pm2File, { cpus: 1 })
      const sixteen = yield* load(pm2File, { cpus: 16 })
      expect(one.apps[0]!.instances).toBe(1)
      expect(sixteen.apps[0]!.instances).toBe(16)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("instances as PM2 writes them", () => {
  const instancesOf = (instances: unknown, cpus: number) =>
    Effect.map(
      loadFiles({ "pmfx.json": ecosystem({ name: "api", script: "a.js", instances }) }, "pmfx.json", { cpus }),
      (l) => l.apps[0]!.instances
    )

  it.effect("max, MAX and 0 are the CPU count; -1 is one less, never below 1; numeric strings count", () =>
    Effect.gen(function* () {
      expect(yield* instancesOf("max", 4)).toBe(4)
      expect(yield* instancesOf(" MAX ", 6)).toBe(6)
      expect(yield* instancesOf(0, 4)).toBe(4)
      expect(yield* instancesOf("0", 3)).toBe(3)
      expect(yield* instancesOf(-1, 4)).toBe(3)
      expect(yield* instancesOf("-1", 8)).toBe(7)
      expect(yield* instancesOf(-1, 1)).toBe(1)
      expect(yield* instancesOf("3", 4)).toBe(3)
      expect(yield* instancesOf(12, 2)).toBe(12)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("-2 is refused", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", instances: -2 }) },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].instances", value: -2 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("PM2 keys and spellings", () => {
  it.effect("PM2 spellings of log, pid and interpreter settings are read as pmfx's", () =>
    Effect.gen(function* () {
      const app = {
        name: "api",
        script: "a.js",
        output: "./logs/out.log",
        error: "./logs/err.log",
        log: "./logs/all.log",
        pid: "./run/api.pid",
        combine_logs: true,
        exec_interpreter: "node"
      }
      const loaded = yield* loadFiles(
        { "ecosystem.config.js": `module.exports = ${JSON.stringify(ecosystem(app))}` },
        "ecosystem.config.js"
      )
      const dir = path.dirname(loaded.file!)
      expect(loaded.apps[0]).toMatchObject({
        out_file: path.join(dir, "logs/out.log"),
        error_file: path.join(dir, "logs/err.log"),
        log_file: path.join(dir, "logs/all.log"),
        pid_file: path.join(dir, "run/api.pid"),
        merge_logs: true,
        interpreter: "node"
      })
      expect(loaded.warnings).toEqual([])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a PM2 spelling next to pmfx's own is ignored with a warning", () =>
    Effect.gen(function* () {
      const app = { name: "api", script: "a.js", out_file: "mine.log", out: "pm2.log" }
      const loaded = yield* loadFiles({ "pmfx.json": ecosystem(app) }, "pmfx.json")
      expect(loaded.apps[0]!.out_file).toBe(path.join(path.dirname(loaded.file!), "mine.log"))
      expect(loaded.warnings).toEqual(["apps[0].out is ignored: out_file is also set"])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("settings read from unset process.env variables in a .js file are left out, as PM2 does", () =>
    Effect.gen(function* () {
      const text = [
        "module.exports = {",
        "  apps: [{",
        '    name: "web",',
        '    script: "./server.js",',
        "    cwd: process.env.PMFX_TEST_UNSET_CWD,",
        "    instances: process.env.PMFX_TEST_UNSET_WORKERS,",
        '    env: { NODE_ENV: "production", SECRET: process.env.PMFX_TEST_UNSET_SECRET },',
        "  }],",
        "}",
        ""
      ].join("\n")
      const loaded = yield* loadFiles({ "ecosystem.config.js": text }, "ecosystem.config.js")
      const dir = path.dirname(loaded.file!)
      expect(loaded.apps[0]).toMatchObject({ cwd: dir, instances: 1, env: { NODE_ENV: "production" } })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("PM2 keys with no meaning here are accepted, each said once per file with why", () =>
    Effect.gen(function* () {
      const first = { name: "api", script: "a.js", vizion: false, pmx: true, treekill: false, kill_retry_time: 300 }
      const second = {
        name: "worker",
        script: "w.js",
        vizion: true,
        windowsHide: true,
        max_memory_restart_interval: 5000
      }
      const loaded = yield* loadFiles({ "pmfx.json": { apps: [first, second] } }, "pmfx.json")
      expect(loaded.apps).toHaveLength(2)
      expect(loaded.warnings.map((w) => w.split(" has no effect")[0])).toEqual([
        "vizion",
        "pmx",
        "treekill",
        "kill_retry_time",
        "windowsHide",
        "max_memory_restart_interval"
      ])
      expect(loaded.warnings[0]).toBe(
        "vizion has no effect in pmfx: it turns PM2's git versioning metadata on or off; pmfx keeps none"
      )
      expect(loaded.warnings[2]).toContain("stops the whole process group")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("cluster mode settings", () => {
  it.effect(
    "exec_mode (PM2's four spellings), wait_ready, listen_timeout and shutdown_with_message are read, with PM2's defaults",
    () =>
      Effect.gen(function* () {
        const apps = [
          {
            name: "a",
            script: "a.js",
            exec_mode: "cluster",
            instances: 2,
            wait_ready: true,
            listen_timeout: 8000,
            shutdown_with_message: true
          },
          { name: "b", script: "b.mjs", exec_mode: "cluster_mode", port: 3000, listen_timeout: "2s" },
          { name: "c", script: "c.js", exec_mode: "fork_mode" },
          { name: "d", script: "d.py", exec_mode: "fork" },
          { name: "e", script: "e.py" }
        ]
        const loaded = yield* loadFiles({ "pmfx.json": ecosystem(...apps) }, "pmfx.json")
        expect(loaded.warnings).toEqual([])
        expect(
          loaded.apps.map((a) => [a.name, a.exec_mode, a.wait_ready, a.listen_timeout, a.shutdown_with_message])
        ).toEqual([
          ["a", "cluster", true, 8000, true],
          ["b", "cluster", false, 2000, false],
          ["c", "fork", false, 3000, false],
          ["d", "fork", false, 3000, false],
          ["e", "fork", false, 3000, false]
        ])
      }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(
    "cluster mode for a script that is not Node is INVALID_CONFIG at exec_mode, suggesting instances with a port range",
    () =>
      Effect.gen(function* () {
        const { error } = yield* loadFilesError(
          {
            "pmfx.json": ecosystem(
              { name: "py", script: "worker.py", exec_mode: "cluster", instances: 2 },
              { name: "ok", script: "a.js", exec_mode: "cluster" }
            )
          },
          "pmfx.json"
        )
        expect(error._tag).toBe("INVALID_CONFIG")
        const problems = (
          error as {
            details: { problems: ReadonlyArray<{ field: string; value: unknown; message: string; suggestion: string }> }
          }
        ).details.problems
        expect(problems).toHaveLength(1)
        expect(problems[0]).toMatchObject({ field: "apps[0].exec_mode", value: "cluster" })
        expect(problems[0]!.message).toContain("cluster mode runs Node scripts only")
        expect(problems[0]!.suggestion).toContain('"port": "3000-3003"')
      }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(
    "a node interpreter makes any script a cluster script; a port range in cluster mode is INVALID_CONFIG at port",
    () =>
      Effect.gen(function* () {
        const loaded = yield* loadFiles(
          { "pmfx.json": ecosystem({ name: "bin", script: "server", interpreter: "node", exec_mode: "cluster" }) },
          "pmfx.json"
        )
        expect(loaded.apps[0]!.exec_mode).toBe("cluster")
        const { error } = yield* loadFilesError(
          {
            "pmfx.json": ecosystem({
              name: "web",
              script: "a.js",
              exec_mode: "cluster",
              instances: 2,
              port: "3000-3001"
            })
          },
          "pmfx.json"
        )
        const problems = (error as { details: { problems: ReadonlyArray<{ field: string; value: unknown }> } }).details
          .problems
        expect(problems.map((p) => [p.field, p.value])).toEqual([["apps[0].port", "3000-3001"]])
      }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
