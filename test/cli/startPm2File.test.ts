/**
 * `pmfx start` on a PM2 file pmfx used to refuse (docs/configuration.md, "File forms"): a JSON5
 * file with an unknown key starts its app through a real daemon and prints the warning on stderr.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, json } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("pmfx start <PM2 JSON5 file>", () => {
  it("starts the app and prints one warning for the unknown key, naming the closest one", async () => {
    const idle = sandbox.write("idle.js", "setInterval(() => {}, 1000)\n")
    const file = sandbox.write(
      "ecosystem.json",
      [
        "// as PM2 users write them",
        "{",
        "  apps: [",
        `    { name: 'ticker', script: ${JSON.stringify(idle)}, instance: 1, },`,
        "  ],",
        "}",
        ""
      ].join("\n")
    )
    const result = sandbox.pmfx(["start", file])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      'apps[0].instance: unknown setting "instance" — did you mean "instances"? (ignored)'
    )
    expect(result.stdout).toMatch(/ticker\s+default\s+create\s+-\s+ok/)
    const online = await allOnline(sandbox, 1)
    expect(online.map((row) => row.name)).toEqual(["ticker"])

    // --json keeps stdout the answer (its apps and rows); the warnings go to stderr as one JSON line.
    sandbox.write("second.json", `{ name: 'second', script: ${JSON.stringify(idle)}, colour: 'blue' }`)
    const second = sandbox.pmfx(["start", path.join(sandbox.dir, "second.json"), "--json"])
    expect(second.code).toBe(0)
    expect(json<{ processes: Array<{ name: string }> }>(second).processes.map((row) => row.name)).toEqual(["second"])
    expect(JSON.parse(second.stderr.trim())).toEqual({
      warnings: [
        'apps[0].colour: unknown setting "colour" (ignored; the settings pmfx knows are listed in docs/configuration.md)'
      ]
    })
  })
})
