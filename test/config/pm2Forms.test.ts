/**
 * PM2 files that pmfx used to refuse (docs/configuration.md, "File forms" and "Warnings and
 * errors"): a bare app or a bare list of apps, unknown keys as warnings, `cmd`/`command` for
 * `script`, PM2's ways of turning the log timestamp off, keys misplaced at the top of the file.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { loadFiles, loadFilesError } from "./helpers"

describe("bare apps", () => {
  it.effect("a bare app object is one app, in JSON, YAML, TOML and a JS module", () =>
    Effect.gen(function* () {
      const files = {
        "a.json": '{ "name": "api", "script": "server.js", "instances": 2 }',
        "a.yaml": "name: api\nscript: server.js\ninstances: 2\n",
        "a.toml": 'name = "api"\nscript = "server.js"\ninstances = 2\n',
        "a.config.js": 'module.exports = { name: "api", script: "server.js", instances: 2 }\n'
      }
      for (const entry of Object.keys(files)) {
        const loaded = yield* loadFiles(files, entry)
        expect(
          loaded.apps.map((app) => [app.name, app.instances]),
          entry
        ).toEqual([["api", 2]])
      }
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a bare list of apps is the app list, in JSON, YAML and a JS module", () =>
    Effect.gen(function* () {
      const files = {
        "l.json": '[ { "name": "api", "script": "a.js" }, { "name": "worker", "script": "w.js" } ]',
        "l.yml": "- name: api\n  script: a.js\n- name: worker\n  script: w.js\n",
        "l.config.js": 'module.exports = [{ name: "api", script: "a.js" }, { name: "worker", script: "w.js" }]\n',
        "l.config.mjs": 'export default [{ name: "api", script: "a.js" }, { name: "worker", script: "w.js" }]\n'
      }
      for (const entry of Object.keys(files)) {
        const loaded = yield* loadFiles(files, entry)
        expect(
          loaded.apps.map((app) => app.name),
          entry
        ).toEqual(["api", "worker"])
      }
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an object with neither apps nor a script is still refused at apps", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError({ "pmfx.json": '{ "name": "api" }' }, "pmfx.json")
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps", value: null })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("unknown keys are warnings", () => {
  it.effect("one warning per unknown key, app-level and nested, with the closest known key; the file loads", () =>
    Effect.gen(function* () {
      const app = {
        name: "api",
        script: "a.js",
        instance: 2,
        health_check: { url: "http://127.0.0.1:3000/", intervall: "5s" },
        frobnicate_everything: 1
      }
      const loaded = yield* loadFiles({ "pmfx.json": { apps: [app], webhook: [] } }, "pmfx.json")
      expect(loaded.apps.map((a) => [a.name, a.instances])).toEqual([["api", 1]])
      expect(loaded.warnings).toEqual([
        'webhook: unknown setting "webhook" — did you mean "webhooks"? (ignored)',
        'apps[0].instance: unknown setting "instance" — did you mean "instances"? (ignored)',
        'apps[0].frobnicate_everything: unknown setting "frobnicate_everything" (ignored; the settings pmfx knows are listed in docs/configuration.md)',
        'apps[0].health_check.intervall: unknown setting "intervall" — did you mean "interval"? (ignored)'
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("--strict makes them INVALID_CONFIG, each with its field and value", () =>
    Effect.gen(function* () {
      const app = { name: "api", script: "a.js", instance: 2 }
      const { error } = yield* loadFilesError({ "pmfx.json": { apps: [app] } }, "pmfx.json", { strict: true })
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({
        field: "apps[0].instance",
        value: 2,
        suggestion: 'did you mean "instances"?'
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a bad value of a known key is still an error, beside the warnings", () =>
    Effect.gen(function* () {
      const app = { name: "api", script: "a.js", instance: 2, max_memory_restart: "lots" }
      const { error } = yield* loadFilesError({ "pmfx.json": { apps: [app] } }, "pmfx.json")
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].max_memory_restart", value: "lots" })
      expect((error.details as { problems: ReadonlyArray<unknown> }).problems).toHaveLength(1)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing script beside a typo of it says which key to rename", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError({ "pmfx.json": { apps: [{ name: "api", scirpt: "a.js" }] } }, "pmfx.json")
      expect(error.details).toMatchObject({
        field: "apps[0].script",
        value: null,
        suggestion: 'rename "scirpt" to "script"'
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("restart settings at the top of the file are warned about: move them into the app", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "pmfx.json": { apps: [{ script: "a.js" }], max_restarts: 3, env_production: { A: "1" } } },
        "pmfx.json"
      )
      expect(loaded.apps[0]!.max_restarts).toBe(16)
      expect(loaded.warnings).toEqual([
        'max_restarts: "max_restarts" is an app setting, not a setting of the whole file; it is ignored here — move it into each app of "apps" that should have it',
        'env_production: "env_production" is an app setting, not a setting of the whole file; it is ignored here — move it into each app of "apps" that should have it'
      ])
      const { error } = yield* loadFilesError(
        { "pmfx.json": { apps: [{ script: "a.js" }], max_restarts: 3 } },
        "pmfx.json",
        { strict: true }
      )
      expect(error.details).toMatchObject({
        field: "max_restarts",
        value: 3,
        suggestion: 'move it into each app of "apps" that should have it'
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("deploy is warned once with why; post_update once for the whole file", () =>
    Effect.gen(function* () {
      const doc = {
        apps: [
          { name: "a", script: "a.js", post_update: ["npm install"] },
          { name: "b", script: "b.js", post_update: ["npm install"] }
        ],
        deploy: { production: { user: "node", host: "example.com" } }
      }
      const loaded = yield* loadFiles({ "pmfx.json": doc }, "pmfx.json")
      expect(loaded.warnings).toHaveLength(2)
      expect(loaded.warnings[0]).toMatch(/^deploy is ignored: pmfx .* does not deploy code/)
      expect(loaded.warnings[1]).toMatch(
        /^post_update has no effect in pmfx: PM2 runs these commands after `pm2 deploy`/
      )
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("cmd and command", () => {
  it.effect("cmd and command are read as script", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.json": {
            apps: [
              { name: "a", cmd: "a.js" },
              { name: "b", command: "b.js" }
            ]
          }
        },
        "pmfx.json"
      )
      expect(loaded.apps.map((app) => app.script.split("/").at(-1))).toEqual(["a.js", "b.js"])
      expect(loaded.warnings).toEqual([])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("script and cmd together are INVALID_CONFIG naming both", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": { apps: [{ name: "a", script: "a.js", cmd: "b.js" }] } },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({
        field: "apps[0].cmd",
        value: "b.js",
        suggestion: "keep one of script, cmd",
        problems: [
          {
            field: "apps[0].cmd",
            value: "b.js",
            message: '"script" and "cmd" both give the app\'s command (PM2 reads "cmd" as "script")',
            suggestion: "keep one of script, cmd"
          }
        ]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("cmd and command together are INVALID_CONFIG naming both, and nothing else", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": { apps: [{ name: "a", cmd: "a.js", command: "b.js" }] } },
        "pmfx.json"
      )
      expect(error.details).toMatchObject({
        field: "apps[0].command",
        value: "b.js",
        problems: [{ field: "apps[0].command", suggestion: "keep one of cmd, command" }]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("log_date_format off", () => {
  it.effect('false, null, "" and "none" (any case) are no timestamp prefix', () =>
    Effect.gen(function* () {
      const apps = [false, null, "", "NONE", "none"].map((off, i) => ({
        name: `a${i}`,
        script: "a.js",
        log_date_format: off
      }))
      const loaded = yield* loadFiles(
        { "pmfx.json": { apps: [...apps, { name: "fmt", script: "a.js", log_date_format: "YYYY-MM-DD HH:mm Z" }] } },
        "pmfx.json"
      )
      expect(loaded.apps.map((app) => app.log_date_format)).toEqual([
        "none",
        "none",
        "none",
        "none",
        "none",
        "YYYY-MM-DD HH:mm Z"
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("true or a number is INVALID_CONFIG at log_date_format", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": { apps: [{ name: "a", script: "a.js", log_date_format: true }] } },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].log_date_format", value: true })
      expect(error.message).toContain("or false for no timestamp")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("watch as PM2 writes it", () => {
  it.effect("a string that is not a boolean is one path to watch", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.json": {
            apps: [
              { name: "a", script: "a.js", watch: "." },
              { name: "b", script: "b.js", watch: "false" }
            ]
          }
        },
        "pmfx.json"
      )
      const dir = loaded.apps[0]!.cwd
      expect(loaded.apps.map((app) => [app.watch, app.watch_paths])).toEqual([
        [true, [dir]],
        [false, []]
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a number is INVALID_CONFIG at watch", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": { apps: [{ name: "a", script: "a.js", watch: 5 }] } },
        "pmfx.json"
      )
      expect(error.details).toMatchObject({ field: "apps[0].watch", value: 5 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
