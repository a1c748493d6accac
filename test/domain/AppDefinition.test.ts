/** A definition saved in state.json before `shell` and `watch_options` existed still loads, with their defaults. */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { AppDefinition } from "../../src/domain/AppDefinition"
import { testApp } from "../logs/helpers"

describe("AppDefinition in state.json", () => {
  it("decodes a definition without shell and watch_options as no shell and no watcher options", () => {
    const {
      shell: _shell,
      watch_options: _options,
      ...older
    } = Schema.encodeSync(AppDefinition)(testApp({ name: "My API" }))
    const decoded = Schema.decodeUnknownSync(AppDefinition)(JSON.parse(JSON.stringify(older)))
    expect(decoded.shell).toBeNull()
    expect(decoded.watch_options).toEqual({})
    expect(decoded.name).toBe("My API")
  })

  it("keeps a shell and watcher options through a save and a load", () => {
    const app = testApp({
      shell: "bash",
      script: "npm run start:prod",
      watch_options: { usePolling: true, interval: 250, ignored: ["*.tmp"] }
    })
    const decoded = Schema.decodeUnknownSync(AppDefinition)(
      JSON.parse(JSON.stringify(Schema.encodeSync(AppDefinition)(app)))
    )
    expect(decoded).toEqual(app)
  })
})

/** A definition saved before cluster mode and PM2's IPC keys existed still loads, as fork mode. */
describe("state.json from before exec_mode", () => {
  it("decodes a definition without exec_mode, wait_ready, listen_timeout and shutdown_with_message with their defaults", () => {
    const {
      exec_mode: _mode,
      wait_ready: _ready,
      listen_timeout: _timeout,
      shutdown_with_message: _message,
      ...older
    } = Schema.encodeSync(AppDefinition)(testApp())
    const decoded = Schema.decodeUnknownSync(AppDefinition)(older)
    expect([decoded.exec_mode, decoded.wait_ready, decoded.listen_timeout, decoded.shutdown_with_message]).toEqual([
      "fork",
      false,
      3000,
      false
    ])
  })

  it("keeps cluster settings through a save and a load", () => {
    const app = testApp({ exec_mode: "cluster", wait_ready: true, listen_timeout: 8000, shutdown_with_message: true })
    expect(
      Schema.decodeUnknownSync(AppDefinition)(JSON.parse(JSON.stringify(Schema.encodeSync(AppDefinition)(app))))
    ).toEqual(app)
  })
})
