/**
 * How the daemon process is started: from the launcher with the daemon's Node flags (its memory
 * budget, docs/architecture.md §12), and from a code cache that V8 accepts under those flags (a cache made
 * under other flags is silently rejected, which would cost start-up time and ~12 MB of RSS).
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { DAEMON_NODE_FLAGS } from "../../src/daemon/daemonNodeFlags"
import { makeSandbox, PMFX_BIN, type Sandbox } from "../support/cli"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => {
  sandbox.cleanup()
})

describe("the daemon process", () => {
  it("is started by the CLI as `node <daemon flags> pmfx.cjs daemon`", () => {
    expect(sandbox.pmfx(["ping"]).code).toBe(0)
    const pid = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8").trim())
    const commandLine = fs
      .readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((word) => word !== "")
    expect(commandLine).toEqual([process.execPath, ...DAEMON_NODE_FLAGS, fs.realpathSync(PMFX_BIN), "daemon"])
  })

  it("compiles from the build's code cache under those flags", () => {
    const bundle = path.join(path.dirname(PMFX_BIN), "daemon.cjs")
    const probe = `
      const fs = require("fs"), vm = require("vm"), Module = require("module")
      const source = fs.readFileSync(${JSON.stringify(bundle)}, "utf8").replace(/^#!.*\\n/, "")
      const script = new vm.Script(Module.wrap(source), {
        filename: ${JSON.stringify(bundle)},
        cachedData: fs.readFileSync(${JSON.stringify(`${bundle}.cache`)}),
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
      })
      process.stdout.write(String(script.cachedDataRejected))`
    const result = spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, "-e", probe], {
      encoding: "utf8",
      timeout: 30_000
    })
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe("false")
  })
})
