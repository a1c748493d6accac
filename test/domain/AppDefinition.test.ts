/** A definition saved in state.json before `shell` and `watch_options` existed still loads, with their defaults. */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { AppDefinition } from "../../src/domain/AppDefinition"
import { testApp } from "../logs/helpers"

describe("AppDefinition in state.json", () => {
  it("decodes a definition without shell and watch_options as no shell and no watcher options", () => {
    const { shell: _shell, watch_options: _options, ...older } = Schema.encodeSync(AppDefinition)(testApp({ name: "My API" }))
    const decoded = Schema.decodeUnknownSync(AppDefinition)(JSON.parse(JSON.stringify(older)))
    expect(decoded.shell).toBeNull()
    expect(decoded.watch_options).toEqual({})
    expect(decoded.name).toBe("My API")
  })

  it("keeps a shell and watcher options through a save and a load", () => {
    const app = testApp({ shell: "bash", script: "npm run start:prod", watch_options: { usePolling: true, interval: 250, ignored: ["*.tmp"] } })
    const decoded = Schema.decodeUnknownSync(AppDefinition)(JSON.parse(JSON.stringify(Schema.encodeSync(AppDefinition)(app))))
    expect(decoded).toEqual(app)
  })
})
