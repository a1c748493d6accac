/**
 * `pmfx-runtime` refuses bad input before it starts anything (docs/containers.md, exit codes): a
 * missing or invalid ecosystem file is exit 3 with the problems, an unknown or misused flag is
 * exit 2 with a suggestion — and no daemon lock, socket or app is left behind.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, processesOfHome, type Sandbox } from "../support/cli"
import { startRuntime } from "./helpers"

describe("pmfx-runtime bad input", () => {
  let sandbox: Sandbox
  afterEach(() => sandbox.cleanup())

  const nothingStarted = () => {
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])
  }

  it("a missing ecosystem file: exit 3, naming the file", async () => {
    sandbox = makeSandbox()
    const runtime = startRuntime(sandbox, ["missing.json"])
    expect(await runtime.exited).toBe(3)
    expect(runtime.stderr()).toContain("missing.json")
    expect(runtime.stderr()).toContain("cannot be started")
    nothingStarted()
  })

  it("an invalid ecosystem file: exit 3 with each problem and its fix", async () => {
    sandbox = makeSandbox()
    sandbox.write("app.js", "setInterval(() => {}, 1000)\n")
    sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "web", scirpt: "app.js" },
          { name: "api", script: "app.js", instances: "lots" }
        ]
      })
    )
    const runtime = startRuntime(sandbox, ["ecosystem.json"])
    expect(await runtime.exited).toBe(3)
    expect(runtime.stderr()).toContain("INVALID_CONFIG")
    expect(runtime.stderr()).toContain("script")
    expect(runtime.stderr()).toContain("instances")
    nothingStarted()
  })

  it("an unknown flag: exit 2 with a did-you-mean and the usage", async () => {
    sandbox = makeSandbox()
    sandbox.write("ecosystem.json", JSON.stringify({ apps: [{ name: "web", script: "app.js" }] }))
    const runtime = startRuntime(sandbox, ["ecosystem.json", "--jsno"])
    expect(await runtime.exited).toBe(2)
    expect(runtime.stderr()).toContain("unknown option --jsno (did you mean --json?)")
    expect(runtime.stderr()).toContain("usage: pmfx-runtime")
    nothingStarted()
  })

  it("start flags with a file, and contradicting flags: exit 2 saying what to do", async () => {
    sandbox = makeSandbox()
    sandbox.write("ecosystem.json", JSON.stringify({ apps: [{ name: "web", script: "app.js" }] }))
    const withFlag = startRuntime(sandbox, ["ecosystem.json", "--instances", "2"])
    expect(await withFlag.exited).toBe(2)
    expect(withFlag.stderr()).toContain("start flags are for a script; set these keys per app in ecosystem.json")
    const both = startRuntime(sandbox, ["ecosystem.json", "--log-files", "--no-log-files"])
    expect(await both.exited).toBe(2)
    expect(both.stderr()).toContain("--log-files and --no-log-files contradict each other")
    const stray = startRuntime(sandbox, ["ecosystem.json", "--port", "9999"])
    expect(await stray.exited).toBe(2)
    expect(stray.stderr()).toContain("add --web")
    nothingStarted()
  })
})
