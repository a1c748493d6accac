/**
 * `fromDocument`: definitions that did not come from a file (`start <command>`, `POST
 * /api/processes`): one app's settings or `{apps:[...]}`, relative paths against `baseDir`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { defaultOptions, withTempDir, writeFiles } from "./helpers"

describe("fromDocument", () => {
  it.effect("a single app object, its relative script resolved against baseDir", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const loaded = yield* loader.fromDocument(
        { name: "api", script: "./bin/server.js", instances: "2", env: { A: 1 } },
        "/srv/app",
        defaultOptions
      )
      expect(loaded.file).toBeNull()
      // The one warning: instances without exec_mode run in fork mode, where PM2 would pick cluster.
      expect(loaded.warnings).toEqual([
        expect.stringMatching(/^apps\[0\]\.instances "2" without exec_mode: pmfx runs these instances in fork mode/)
      ])
      expect(loaded.apps).toHaveLength(1)
      expect(loaded.apps[0]).toMatchObject({
        name: "api",
        script: "/srv/app/bin/server.js",
        cwd: "/srv/app",
        instances: 2,
        env: { A: "1" },
        autorestart: true,
        max_restarts: 16,
        min_uptime: 1000,
        restart_delay: 0,
        kill_timeout: 5000
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("{apps:[...]} with cwd, log paths and depends_on", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const loaded = yield* loader.fromDocument(
        {
          apps: [
            { name: "api", script: "./server.js", cwd: "api", out_file: "logs/out.log", depends_on: ["db"] },
            { name: "db", script: "/usr/bin/postgres", args: "-D '/var/lib/my data'" }
          ]
        },
        "/srv/app",
        defaultOptions
      )
      const [api, db] = loaded.apps
      expect(api).toMatchObject({
        cwd: "/srv/app/api",
        script: "/srv/app/api/server.js",
        out_file: "/srv/app/logs/out.log",
        depends_on: [{ name: "db", condition: "online" }]
      })
      expect(db).toMatchObject({ script: "/usr/bin/postgres", args: ["-D", "/var/lib/my data"], cwd: "/srv/app" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a bare command stays a command for PATH lookup unless it names a file in cwd", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        writeFiles(dir, { "run.sh": "#!/bin/sh\n" })
        const loader = yield* ConfigLoader
        const loaded = yield* loader.fromDocument(
          {
            apps: [
              { name: "a", script: "npm", args: ["start"] },
              { name: "b", script: "run.sh" }
            ]
          },
          dir,
          defaultOptions
        )
        expect(loaded.apps.map((a) => a.script)).toEqual(["npm", path.join(dir, "run.sh")])
        expect(fs.existsSync(path.join(dir, "run.sh"))).toBe(true)
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("substitutes from the given environment", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const loaded = yield* loader.fromDocument({ script: "a.js", instances: "${N:-3}" }, "/srv", {
        ...defaultOptions,
        environment: { N: "5" }
      })
      expect(loaded.apps[0]).toMatchObject({ name: "a", instances: 5 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a single app without script is INVALID_CONFIG at apps[0].script, with no file", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const error = yield* Effect.flip(loader.fromDocument({ name: "api", instances: 2 }, "/srv", defaultOptions))
      const problem = { field: "apps[0].script", value: null, message: "is required", suggestion: "add script" }
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toEqual({
        field: problem.field,
        value: null,
        suggestion: problem.suggestion,
        problems: [problem]
      })
      expect(error.message).toBe("apps[0].script: is required")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a single app with a typo'd script key reports the missing script, saying which key to rename", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const error = yield* Effect.flip(loader.fromDocument({ name: "api", scirpt: "a.js" }, "/srv", defaultOptions))
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details.problems?.map((p) => [p.field, p.suggestion])).toEqual([
        ["apps[0].script", 'rename "scirpt" to "script"']
      ])
      const strict = yield* Effect.flip(
        loader.fromDocument({ name: "api", scirpt: "a.js" }, "/srv", { ...defaultOptions, strict: true })
      )
      expect(strict.details.problems?.map((p) => [p.field, p.suggestion])).toEqual([
        ["apps[0].scirpt", 'did you mean "script"?'],
        ["apps[0].script", 'rename "scirpt" to "script"']
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a document that is not an object is INVALID_CONFIG", () =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const error = yield* Effect.flip(loader.fromDocument("server.js", "/srv", defaultOptions))
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "", value: "server.js" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("env_file is checked against baseDir", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const loader = yield* ConfigLoader
        const error = yield* Effect.flip(loader.fromDocument({ script: "a.js", env_file: ".env" }, dir, defaultOptions))
        expect(error._tag).toBe("INVALID_CONFIG")
        expect(error.details).toMatchObject({ field: "apps[0].env_file", value: ".env" })
        writeFiles(dir, { ".env": "A=1\n" })
        const loaded = yield* loader.fromDocument({ script: "a.js", env_file: ".env" }, dir, defaultOptions)
        expect(loaded.apps[0]!.env_file).toBe(path.join(dir, ".env"))
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )
})
