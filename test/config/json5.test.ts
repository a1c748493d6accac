/**
 * `.json` ecosystem files are read as JSON5 (docs/configuration.md, "File forms"): PM2 evaluates
 * them as JavaScript, so comments, trailing commas, unquoted keys and single quotes are common.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { loadFiles } from "./helpers"

describe("JSON5 in .json files", () => {
  it.effect("comments, trailing commas, unquoted keys and single quotes load as PM2 reads them", () =>
    Effect.gen(function* () {
      const text = [
        "// ecosystem of the shop",
        "{",
        "  /* two apps */",
        "  apps: [",
        "    {",
        "      name: 'api', // the web side",
        "      script: './server.js',",
        "      instances: 2,",
        "      env: { NODE_ENV: 'production', },",
        "    },",
        "    { 'name': \"worker\", script: 'worker.js', max_restarts: 0x0A, },",
        "  ],",
        "}",
        ""
      ].join("\n")
      const loaded = yield* loadFiles({ "ecosystem.json": text }, "ecosystem.json")
      expect(loaded.apps.map((app) => [app.name, app.instances, app.max_restarts])).toEqual([
        ["api", 2, 16],
        ["worker", 1, 10]
      ])
      expect(loaded.apps[0]!.env).toEqual({ NODE_ENV: "production" })
      // The one warning: instances without exec_mode run in fork mode, where PM2 would pick cluster.
      expect(loaded.warnings).toEqual([
        expect.stringMatching(/^apps\[0\]\.instances 2 without exec_mode: pmfx runs these instances in fork mode/)
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a byte-order mark before a JSON5 text is skipped", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles({ "pmfx.json": "\uFEFF{ apps: [ { script: 'a.js', }, ], }" }, "pmfx.json")
      expect(loaded.apps.map((app) => app.name)).toEqual(["a"])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
