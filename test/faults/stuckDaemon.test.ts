/**
 * Fault suite: a daemon that holds its lock but answers nothing (stopped with SIGSTOP). A command
 * must not start a second daemon beside it, must give up after its 15 s start timeout with
 * DAEMON_UNREACHABLE (exit 7) naming the stuck pid and how to stop it, and once the stuck daemon
 * is gone the next command works (docs/decisions.md, "The daemon lock knows its owner").
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { eventually, isAlive, json, ok } from "../cli/helpers"
import { makeSandbox, type Sandbox } from "../support/cli"

let sandbox: Sandbox
let stopped: number | undefined
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => {
  if (stopped !== undefined && isAlive(stopped)) process.kill(stopped, "SIGCONT")
  sandbox.cleanup()
})

describe("a stuck daemon", () => {
  it("is named in the error, never run beside, and replaced once it is gone", async () => {
    ok(sandbox, ["list"])
    const pidFile = path.join(sandbox.home, "daemon.pid")
    const stuck = Number(fs.readFileSync(pidFile, "utf8").trim())
    process.kill(stuck, "SIGSTOP")
    stopped = stuck
    const started = Date.now()
    const listed = sandbox.pmfx(["list"])
    const tookMs = Date.now() - started
    expect(listed.code).toBe(7)
    expect(listed.stderr).toContain(`DAEMON_UNREACHABLE the daemon (pid ${stuck}) holds ${pidFile} but did not answer`)
    expect(listed.stderr).toContain(`stop it with \`kill ${stuck}\``)
    console.log(`stuck daemon: DAEMON_UNREACHABLE after ${tookMs} ms`)
    // No second daemon took over meanwhile.
    expect(Number(fs.readFileSync(pidFile, "utf8").trim())).toBe(stuck)

    process.kill(stuck, "SIGKILL")
    await eventually(() => expect(isAlive(stuck)).toBe(false))
    const after = sandbox.pmfx(["list", "--json"])
    expect(after.code, after.stderr).toBe(0)
    expect(json(after)).toEqual([])
  })
})
