/**
 * One PMFX_HOME and one daemon for the tests of a describe block (or a file) that only need their
 * own apps and files, not a fresh daemon: a daemon start and stop is ~0.5 s of CPU and up to a
 * second of waiting on a loaded machine, once per test otherwise. Each test gets a folder of its
 * own (`sandbox.dir`, the commands' working folder, removed after the test), so the files it
 * writes never meet another test's. After each test every app is deleted and every process it
 * started is gone (waited for), so the next test starts from an empty table as it would with a
 * new daemon (the apps' log files are removed too); only ids keep counting up (they are never reused), so these tests compare ids with
 * the rows they read, never with literal numbers. A test that stops, kills or restarts the
 * daemon, reads its settings or its environment, or needs no daemon at all, keeps a sandbox of
 * its own (makeSandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest"
import { makeSandbox, type Sandbox, sandboxOver } from "../support/cli"
import { emptySharedHome } from "../support/emptySharedHome"

/** Registers the hooks in the calling describe block (or file); the getter returns this test's sandbox. */
export const sharedSandbox = (): (() => Sandbox) => {
  let shared: Sandbox | undefined
  let current: Sandbox | undefined
  let tests = 0
  beforeAll(() => {
    shared = makeSandbox()
  })
  beforeEach(() => {
    if (shared === undefined) return
    const folder = path.join(shared.dir, `test-${++tests}`)
    fs.mkdirSync(folder)
    current = sandboxOver(folder, shared.home, () => fs.rmSync(folder, { recursive: true, force: true }), shared.dir)
  })
  afterEach(async () => {
    if (shared === undefined) return
    const socket = path.join(shared.home, "pmfx.sock")
    if (fs.existsSync(socket)) {
      const daemon = Number(fs.readFileSync(path.join(shared.home, "daemon.pid"), "utf8").trim())
      await emptySharedHome(shared.home, socket, daemon)
    }
    current?.cleanup()
    current = undefined
  })
  afterAll(() => shared?.cleanup())
  return () => {
    if (current === undefined) throw new Error("sharedSandbox: used outside its describe block's tests")
    return current
  }
}
