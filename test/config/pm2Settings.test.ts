/**
 * PM2 settings pmfx honours (docs/configuration.md §3.11): how each is read, its default, and the
 * exact INVALID_CONFIG a bad value gets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { AppDefinition } from "../../src/domain/AppDefinition"
import { testApp } from "../logs/helpers"
import { ecosystem, loadFiles, loadFilesError } from "./helpers"

const appWith = (settings: object) =>
  Effect.map(
    loadFiles({ "pmfx.json": ecosystem({ name: "api", script: "a.js", ...settings }) }, "pmfx.json"),
    (loaded) => ({
      app: loaded.apps[0]!,
      warnings: loaded.warnings
    })
  )

const problemOf = (settings: object) =>
  Effect.map(
    loadFilesError({ "pmfx.json": ecosystem({ name: "api", script: "a.js", ...settings }) }, "pmfx.json"),
    ({ error }) => {
      expect(error._tag).toBe("INVALID_CONFIG")
      return error._tag === "INVALID_CONFIG" ? error.details.problems![0]! : undefined
    }
  )

describe("instances without exec_mode (docs/configuration.md, exec_mode)", () => {
  it.effect("warns for a Node script that PM2 would run in cluster mode; exec_mode or one instance says nothing", () =>
    Effect.gen(function* () {
      const { app, warnings } = yield* appWith({ instances: 4 })
      // The default is unchanged: fork mode.
      expect(app.exec_mode).toBe("fork")
      expect(warnings).toEqual([
        'apps[0].instances 4 without exec_mode: pmfx runs these instances in fork mode (separate processes, each needs its own port), while PM2 runs a Node script in cluster mode (one port shared); set exec_mode to "cluster" for PM2\'s behaviour, or to "fork" to keep this one and silence this warning'
      ])
      expect((yield* appWith({ instances: "max" })).warnings).toHaveLength(1)
      expect((yield* appWith({ instances: 4, exec_mode: "fork" })).warnings).toEqual([])
      expect((yield* appWith({ instances: 4, exec_mode: "cluster_mode" })).warnings).toEqual([])
      expect((yield* appWith({ instances: 1 })).warnings).toEqual([])
      // Not a Node program: PM2 runs it in fork mode too.
      expect((yield* appWith({ script: "worker.py", instances: 4 })).warnings).toEqual([])
      expect((yield* appWith({ script: "server", interpreter: "node", instances: 2 })).warnings).toHaveLength(1)
      // With pmfx's own port (a range, one per instance), fork mode is what the file asks for.
      expect((yield* appWith({ instances: 2, port: "4000-4001" })).warnings).toEqual([])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("the ecosystem file an app comes from", () => {
  it.effect("is recorded as config_file (absolute); a definition given as data has none", () =>
    Effect.gen(function* () {
      const { app } = yield* appWith({})
      expect(app.config_file).toMatch(/^\/.*\/pmfx\.json$/)
      const loader = yield* ConfigLoader
      const given = yield* loader.fromDocument({ name: "x", script: "x.js" }, "/tmp", { environment: {} })
      expect(given.apps[0]!.config_file).toBe(null)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
  it("a stored definition without it (a state file from before) decodes with null", () => {
    const { config_file: _, ...older } = Schema.encodeSync(AppDefinition)(testApp({ config_file: "/srv/eco.json" }))
    expect(older).not.toHaveProperty("config_file")
    expect(Schema.decodeUnknownSync(AppDefinition)(older).config_file).toBe(null)
  })
})

describe("PM2 settings with PM2's meaning", () => {
  it.effect("defaults: no interpreter flags, NODE_APP_INSTANCE, no schedule, autostart, nothing filtered", () =>
    Effect.gen(function* () {
      const { app, warnings } = yield* appWith({})
      expect(app).toMatchObject({
        interpreter_args: [],
        instance_var: "NODE_APP_INSTANCE",
        increment_var: null,
        source_map_support: null,
        stop_exit_codes: [],
        cron_restart: null,
        autostart: true,
        filter_env: false,
        kill_signal: null,
        log_date_format: "YYYY-MM-DDTHH:mm:ss.SSSZ"
      })
      expect(warnings).toEqual([])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("node_args as a string or an array; interpreter_args is the same setting; node_args wins", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ node_args: "--max-old-space-size=512 --trace-warnings" })).app.interpreter_args).toEqual(
        ["--max-old-space-size=512", "--trace-warnings"]
      )
      expect((yield* appWith({ interpreter_args: ["--inspect=0"] })).app.interpreter_args).toEqual(["--inspect=0"])
      expect((yield* appWith({ node_args: "--a", interpreter_args: "--b" })).app.interpreter_args).toEqual(["--a"])
      expect(yield* problemOf({ node_args: { max: 1 } })).toMatchObject({
        field: "apps[0].node_args",
        value: { max: 1 }
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(
    'a relative cwd loads with a warning naming PM2\'s different base folder; an absolute or "." one does not',
    () =>
      Effect.gen(function* () {
        const relative = yield* appWith({ cwd: "./app" })
        expect(relative.app.cwd.endsWith("/app")).toBe(true)
        expect(relative.warnings).toEqual([
          `apps[0].cwd "./app" is relative: pmfx resolves it from the ecosystem file's folder, PM2 from the folder you run pm2 in; write an absolute path if the file relied on that`
        ])
        expect((yield* appWith({ cwd: "/srv" })).warnings).toEqual([])
        expect((yield* appWith({ cwd: "." })).warnings).toEqual([])
      }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("instance_var and increment_var are variable names", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ instance_var: "INSTANCE_ID", increment_var: "PORT" })).app).toMatchObject({
        instance_var: "INSTANCE_ID",
        increment_var: "PORT"
      })
      // PM2 takes any name the environment can hold, as real files use (`my-app`).
      expect((yield* appWith({ instance_var: "my-app" })).app.instance_var).toBe("my-app")
      expect(yield* problemOf({ instance_var: "A=B" })).toEqual({
        field: "apps[0].instance_var",
        value: "A=B",
        message: 'string "A=B" is not a variable name (not empty, without "=")',
        suggestion: "write a variable name like INSTANCE_ID"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("time: true keeps timestamps, time: false turns them off unless log_date_format is given", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ time: true })).app.log_date_format).toBe("YYYY-MM-DDTHH:mm:ss.SSSZ")
      expect((yield* appWith({ time: false })).app.log_date_format).toBe("none")
      expect((yield* appWith({ time: false, log_date_format: "YYYY-MM-DD HH:mm" })).app.log_date_format).toBe(
        "YYYY-MM-DD HH:mm"
      )
      expect((yield* appWith({ time: true, log_date_format: "HH:mm:ss" })).app.log_date_format).toBe("HH:mm:ss")
      expect(yield* problemOf({ time: "sometimes" })).toMatchObject({ field: "apps[0].time", value: "sometimes" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("source maps: set, unset (PM2's .map detection) or disabled", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ source_map_support: true })).app.source_map_support).toBe(true)
      expect((yield* appWith({ source_map_support: false })).app.source_map_support).toBe(false)
      expect(
        (yield* appWith({ source_map_support: true, disable_source_map_support: true })).app.source_map_support
      ).toBe(false)
      expect((yield* appWith({ disable_source_map_support: false })).app.source_map_support).toBeNull()
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("stop_exit_codes: one code or a list, 0 to 255", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ stop_exit_codes: 0 })).app.stop_exit_codes).toEqual([0])
      expect((yield* appWith({ stop_exit_codes: [0, "3", 42] })).app.stop_exit_codes).toEqual([0, 3, 42])
      expect(yield* problemOf({ stop_exit_codes: [0, 300] })).toEqual({
        field: "apps[0].stop_exit_codes",
        value: [0, 300],
        message: "300 is not an exit code (0 to 255)",
        suggestion: "write an exit code (0 to 255) or a list of them, like [0, 3]"
      })
      expect(yield* problemOf({ stop_exit_codes: "never" })).toMatchObject({
        field: "apps[0].stop_exit_codes",
        value: "never",
        message: 'expected an exit code, got string "never"'
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("kill_signal: PM2's forms and numbers, stored by name; an unknown signal names the field; no warning", () =>
    Effect.gen(function* () {
      const { app, warnings } = yield* appWith({ kill_signal: "SIGINT" })
      expect(app.kill_signal).toBe("SIGINT")
      expect(warnings).toEqual([])
      expect((yield* appWith({ kill_signal: "usr2" })).app.kill_signal).toBe("SIGUSR2")
      expect((yield* appWith({ kill_signal: " HUP " })).app.kill_signal).toBe("SIGHUP")
      expect((yield* appWith({ kill_signal: 2 })).app.kill_signal).toBe("SIGINT")
      expect((yield* appWith({ kill_signal: "15" })).app.kill_signal).toBe("SIGTERM")
      expect(yield* problemOf({ kill_signal: "SIGFOO" })).toEqual({
        field: "apps[0].kill_signal",
        value: "SIGFOO",
        message: '"SIGFOO" is not a signal this system knows',
        suggestion: "write a signal name like SIGINT, SIGTERM or SIGUSR2 (INT, sigint and a number like 2 work too)"
      })
      expect(yield* problemOf({ kill_signal: 99 })).toMatchObject({
        field: "apps[0].kill_signal",
        value: 99,
        message: "99 is not a signal number (1-64)"
      })
      expect(yield* problemOf({ kill_signal: 40 })).toMatchObject({
        field: "apps[0].kill_signal",
        value: 40,
        message: "40 is not a signal pmfx can send by name"
      })
      expect(yield* problemOf({ kill_signal: true })).toMatchObject({
        field: "apps[0].kill_signal",
        value: true,
        message: "expected a signal name, got boolean true"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("cron_restart: 5 or 6 fields, nicknames, PM2's 0 for none; a bad schedule names the field", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ cron_restart: "0 3 * * *" })).app.cron_restart).toBe("0 3 * * *")
      expect((yield* appWith({ cron_restart: " */10 * * * * * " })).app.cron_restart).toBe("*/10 * * * * *")
      expect((yield* appWith({ cron_restart: "@daily" })).app.cron_restart).toBe("@daily")
      expect((yield* appWith({ cron_restart: 0 })).app.cron_restart).toBeNull()
      expect((yield* appWith({ cron_restart: "0" })).app.cron_restart).toBeNull()
      const fields = yield* problemOf({ cron_restart: "every day" })
      expect(fields).toMatchObject({ field: "apps[0].cron_restart", value: "every day" })
      expect(fields!.message).toContain('"every day" has 2 fields')
      const range = yield* problemOf({ cron_restart: "0 25 * * *" })
      expect(range).toMatchObject({ field: "apps[0].cron_restart", value: "0 25 * * *" })
      expect(range!.message).toContain('"0 25 * * *" is not a cron schedule')
      expect((yield* problemOf({ cron_restart: "0 0 30 2 *" }))!.message).toContain("never matches a date")
      expect(yield* problemOf({ cron_restart: true })).toMatchObject({ field: "apps[0].cron_restart", value: true })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("autostart and filter_env", () =>
    Effect.gen(function* () {
      expect((yield* appWith({ autostart: false })).app.autostart).toBe(false)
      expect((yield* appWith({ filter_env: true })).app.filter_env).toBe(true)
      expect((yield* appWith({ filter_env: "SECRET" })).app.filter_env).toEqual(["SECRET"])
      expect((yield* appWith({ filter_env: ["AWS_", "npm_"] })).app.filter_env).toEqual(["AWS_", "npm_"])
      expect(yield* problemOf({ filter_env: [1] })).toMatchObject({ field: "apps[0].filter_env", value: [1] })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
