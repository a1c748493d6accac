/**
 * `watch_options` (PM2 hands it to chokidar): the keys pmfx's watcher honours are decoded and
 * resolved, the others are warned about with why; a bad value is INVALID_CONFIG on its field.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { InvalidConfig } from "../../src/domain/errors"
import { loadFiles, withTempDir, writeFiles, load } from "./helpers"

const app = (watch_options: unknown, extra: object = {}) => ({
  apps: [{ name: "web", script: "server.js", watch: ["lib"], watch_options, ...extra }]
})

describe("watch_options", () => {
  it.effect("honoured keys are resolved; cwd is where watch paths and ignore patterns start", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        writeFiles(dir, {
          "eco.json": app({
            usePolling: true,
            interval: "250ms",
            binaryInterval: 900,
            followSymlinks: false,
            ignored: "tmp/**",
            awaitWriteFinish: true,
            depth: 3,
            cwd: "src"
          })
        })
        const loaded = yield* load(path.join(dir, "eco.json"))
        const web = loaded.apps[0]!
        expect(web.watch_options).toEqual({
          usePolling: true,
          interval: 250,
          binaryInterval: 900,
          followSymlinks: false,
          ignored: ["tmp/**"],
          awaitWriteFinish: { stabilityThreshold: 2000, pollInterval: 100 },
          depth: 3,
          cwd: path.join(dir, "src")
        })
        expect(web.watch_paths).toEqual([path.join(dir, "src", "lib")])
        expect(loaded.warnings).toEqual([])
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("keys pmfx sets itself or cannot honour are warned about with why, and dropped", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "eco.json": app({
            usePolling: true,
            persistent: false,
            ignoreInitial: false,
            usePoling: true,
            awaitWriteFinish: { stabilityThreshold: "1s" }
          })
        },
        "eco.json"
      )
      expect(loaded.apps[0]!.watch_options).toEqual({
        usePolling: true,
        awaitWriteFinish: { stabilityThreshold: 1000, pollInterval: 100 }
      })
      expect(loaded.warnings).toEqual([
        "apps[0].watch_options.persistent is ignored: pmfx keeps the watcher open as long as the app is watched",
        "apps[0].watch_options.ignoreInitial is ignored: pmfx never restarts an app for the files that exist when watching starts",
        'apps[0].watch_options.usePoling is ignored: not a watcher option pmfx passes on (did you mean "usePolling"?); honoured: usePolling, interval, binaryInterval, followSymlinks, ignored, awaitWriteFinish, depth, cwd'
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a regular expression in ignored (a JavaScript file) is dropped with a warning; its strings stay", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "eco.config.js": `module.exports = { apps: [{ name: "web", script: "server.js", watch: true, watch_options: { ignored: [/\\.tmp$/, "logs"] } }] }`
        },
        "eco.config.js"
      )
      expect(loaded.apps[0]!.watch_options).toEqual({ ignored: ["logs"] })
      expect(loaded.warnings).toEqual([
        "apps[0].watch_options.ignored: a regular expression or function is ignored (it cannot be saved with the app); write glob strings, as in ignore_watch"
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("bad values: INVALID_CONFIG on each field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        loadFiles({ "eco.json": app({ interval: "soon", depth: -1, usePolling: "often" }) }, "eco.json")
      )
      expect(error).toBeInstanceOf(InvalidConfig)
      const problems = (error as InvalidConfig).details.problems ?? []
      expect(problems.map((p) => p.field)).toEqual([
        "apps[0].watch_options.usePolling",
        "apps[0].watch_options.interval",
        "apps[0].watch_options.depth"
      ])
      const notObject = yield* Effect.flip(loadFiles({ "eco.json": app("fast") }, "eco.json"))
      expect(((notObject as InvalidConfig).details.problems ?? []).map((p) => [p.field, p.message])).toEqual([
        ["apps[0].watch_options", 'expected an object of watcher options like {"usePolling": true}, got string "fast"']
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
