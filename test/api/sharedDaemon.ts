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
import { afterAll, afterEach, beforeAll } from "@effect/vitest"
import { emptySharedHome } from "../support/emptySharedHome"
import { type Daemon, startDaemon } from "./daemon"

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
    await emptySharedHome(shared.home, shared.socket, shared.pid)
  }, 60_000)
  afterAll(async () => {
    await shared?.stop()
  }, 60_000)
  return () => {
    if (shared === undefined) throw new Error("sharedDaemon: used outside its describe block's tests")
    return shared
  }
}
