/** The listed port (env PORT when no `port` is set) and the detail's extras (src/supervisor/detailExtras.ts). */
import { describe, expect, it } from "@effect/vitest"
import { definitionSource, lastExitOf, listedPort } from "../../src/supervisor/detailExtras"
import { testApp } from "../logs/helpers"

describe("listedPort", () => {
  it("is pmfx's own port, else a valid env PORT (per instance with increment_var PORT), else null", () => {
    expect(listedPort(testApp({ port: "4000-4001" }), 4001, 1)).toBe("4001")
    expect(listedPort(testApp({ port: "4000" }), null, 0)).toBe(null)
    expect(listedPort(testApp({ env: { PORT: "3000" } }), null, 1)).toBe("3000")
    expect(listedPort(testApp({ env: { PORT: "3000" }, increment_var: "PORT" }), null, 2)).toBe("3002")
    for (const bad of ["0", "70000", "web", "", "30 00"])
      expect(listedPort(testApp({ env: { PORT: bad } }), null, 0), bad).toBe(null)
    expect(listedPort(testApp(), null, 0)).toBe(null)
  })
})

describe("the detail's extras", () => {
  it("config_file, autorestart and watch (paths only while watching); the last exit's time in ISO 8601", () => {
    expect(
      definitionSource(
        testApp({
          config_file: "/srv/eco.json",
          autorestart: false,
          watch: true,
          watch_paths: ["/srv/src"],
          ignore_watch: ["*.log"]
        })
      )
    ).toEqual({
      config_file: "/srv/eco.json",
      autorestart: false,
      watch: { enabled: true, paths: ["/srv/src"], ignore: ["*.log"] }
    })
    expect(definitionSource(testApp({ watch: false, watch_paths: ["/srv"] })).watch).toEqual({
      enabled: false,
      paths: [],
      ignore: []
    })
    expect(lastExitOf({ code: null, signal: "SIGKILL", at: Date.UTC(2026, 10, 26, 2, 43, 17) })).toEqual({
      code: null,
      signal: "SIGKILL",
      at: "2026-11-26T02:43:17.000Z"
    })
    expect(lastExitOf(null)).toBe(null)
  })
})
