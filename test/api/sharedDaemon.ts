/**
 * One daemon (test/api/daemon.ts) for the tests of a describe block (or a file) that only need
 * their own apps, not a fresh daemon: a daemon start and stop is ~0.3–0.5 s of CPU, once per test
 * otherwise (docs/decisions.md, "The suite, seventh pass: shared daemons in the API tests"). After
 * each test every app is deleted, every process it started is gone (waited for) and the apps' log
 * files are removed, so the next test starts from an empty table as it would with a new daemon;
 * only ids keep counting up (they are never reused), so these tests read ids from the answers they
 * get, never as literal numbers. A test that stops the daemon, starts it with flags, or reads what
 * an earlier request left in its state, keeps a daemon of its own (`startDaemon`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, expect } from "@effect/vitest"
import { processesOfHome } from "../support/cli"
import { type Daemon, eventually, startDaemon } from "./daemon"

/**
 * Registers the hooks in the calling describe block (or file); the getter returns the daemon.
 * `afterEachTest` runs first after every test (closing the test's clients, say), before its apps
 * are deleted.
 */
export const sharedDaemon = (afterEachTest: () => void | Promise<void> = () => {}): (() => Daemon) => {
  let shared: Daemon | undefined
  beforeAll(async () => {
    shared = await startDaemon()
  }, 60_000)
  afterEach(async () => {
    await afterEachTest()
    if (shared === undefined) return
    const daemon = shared
    const deleted = await daemon.request("DELETE", "/api/processes/all")
    expect(deleted.status, deleted.raw).toBe(204)
    // Nothing of this home runs but the daemon: every app and its children are gone.
    await eventually(
      () => processesOfHome(daemon.home).filter((pid) => pid !== daemon.pid).length === 0,
      "the shared daemon's apps to be gone"
    )
    // A deleted app's log files stay: the next test's app of that name starts with empty ones.
    const logs = path.join(daemon.home, "logs")
    for (const file of fs.existsSync(logs) ? fs.readdirSync(logs) : [])
      fs.rmSync(path.join(logs, file), { force: true, recursive: true })
  }, 60_000)
  afterAll(async () => {
    await shared?.stop()
  }, 60_000)
  return () => {
    if (shared === undefined) throw new Error("sharedDaemon: used outside its describe block's tests")
    return shared
  }
}
