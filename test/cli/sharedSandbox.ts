/**
 * One sandbox — one PMFX_HOME, one daemon — for the tests of a describe block that only need their
 * own apps, not a fresh daemon: a daemon start and stop is ~0.5 s of CPU and up to a second of
 * waiting on a loaded machine, once per test otherwise. After each test every app is deleted and
 * every process it started is gone (waited for), so the next test starts from an empty table as
 * it would with a new daemon; only ids keep counting up (they are never reused), so these tests
 * compare ids with the rows they read, never with literal numbers. A test that stops, kills or
 * restarts the daemon, or reads its settings, keeps a sandbox of its own.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, expect } from "vitest"
import { makeSandbox, processesOfHome, type Sandbox } from "../support/cli"
import { request } from "../support/daemon"
import { eventually } from "./helpers"

/** Registers the hooks in the calling describe block; the getter returns its sandbox. */
export const sharedSandbox = (): (() => Sandbox) => {
  let sandbox: Sandbox | undefined
  beforeAll(() => {
    sandbox = makeSandbox()
  })
  afterEach(async () => {
    if (sandbox === undefined) return
    const socket = path.join(sandbox.home, "pmfx.sock")
    if (!fs.existsSync(socket)) return
    const deleted = await request(socket, "DELETE", "/api/processes/all")
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204)
    // Nothing of this home runs but the daemon: every app and its children are gone.
    const daemon = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8").trim())
    const home = sandbox.home
    await eventually(() => expect(processesOfHome(home).filter((pid) => pid !== daemon)).toEqual([]), 30_000)
  })
  afterAll(() => sandbox?.cleanup())
  return () => {
    if (sandbox === undefined) throw new Error("sharedSandbox: used outside its describe block's tests")
    return sandbox
  }
}
