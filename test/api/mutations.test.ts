/**
 * Mutations of one app serialise (issue 11, defects 2 and 13): a restart or reload racing a
 * delete leaves no process behind, a storm of overlapping requests leaves `list` equal to what
 * runs, and concurrent deletes report each removed id once. The long versions are in
 * test/faults/mutations.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeTestDaemon, type TestDaemon, waitFor } from "../support/daemon"
import {
  acceptable,
  descendantsOfPid,
  httpStorm,
  listOf,
  reloadRacingDelete,
  restartRacingDelete,
  settle,
  sleeper
} from "../support/storm"

/**
 * One daemon for the file (a start and stop is ~0.5 s of CPU): after each test every app is
 * deleted and every process the daemon started is gone (waited for), so each test starts from an
 * empty table with nothing running, as with a new daemon. The tests name apps, never ids.
 */
let daemon: TestDaemon | undefined
beforeAll(async () => {
  daemon = makeTestDaemon()
  await daemon.start()
})
afterEach(async () => {
  if (daemon === undefined) return
  const shared = daemon
  const deleted = await shared.call("DELETE", "/api/processes/all")
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(204)
  const pid = shared.pid()!
  await waitFor(
    async () => descendantsOfPid(pid).length === 0 && (await listOf(shared.call)()).length === 0,
    "the shared daemon's apps to be gone"
  )
})
afterAll(async () => {
  await daemon?.cleanup()
  daemon = undefined
})

const started = async () => {
  const pid = daemon!.pid()!
  return { call: daemon!.call, running: () => descendantsOfPid(pid) }
}

describe("mutations of one app", () => {
  it("restart and reload racing delete leave nothing running and nothing listed", async () => {
    const { call, running } = await started()
    const statuses = [...(await restartRacingDelete(call, 3)), ...(await reloadRacingDelete(call, 2))]
    expect(statuses.filter((status) => !acceptable(status))).toEqual([])
    const outcome = await settle(listOf(call), running)
    expect(outcome.untracked).toEqual([])
    expect(await listOf(call)()).toEqual([])
  })

  it("20 overlapping HTTP mutations on 3 names: list equals what runs", async () => {
    const { call, running } = await started()
    const statuses = await httpStorm(call, { size: 20, rounds: 1, names: ["a", "b", "c"], seed: 7 })
    expect(statuses.filter((status) => !acceptable(status))).toEqual([])
    // Something must be left running for the comparison to mean anything.
    await call("POST", "/api/processes", sleeper("witness"))
    const outcome = await settle(listOf(call), running)
    expect(outcome.untracked).toEqual([])
    expect(outcome.ghosts).toEqual([])
    expect(outcome.running.length).toBeGreaterThan(0)
  })

  it("concurrent deletes of one app report its ids once; a later one is PROCESS_NOT_FOUND", async () => {
    const { call } = await started()
    const created = await call("POST", "/api/processes", sleeper("twice", 2))
    const ids = (created.body.processes as Array<{ id: number }>).map((row) => row.id)
    const replies = await Promise.all([0, 1, 2].map(() => call("DELETE", "/api/processes?id=twice")))
    const ok = replies.filter((reply) => reply.status === 200)
    // Every answer is the ids it removed or a 404, and together they name each id exactly once.
    expect(ok.flatMap((reply) => reply.body.deleted as Array<number>).sort()).toEqual(ids)
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expect(reply.status).toBe(404)
      expect(reply.body.error.code).toBe("PROCESS_NOT_FOUND")
    }
    const late = await call("DELETE", "/api/processes?id=twice")
    expect(late.status).toBe(404)
    expect(late.body.error.details.process_id).toBe("twice")
    // Nothing else broke: the daemon still creates and lists.
    expect((await call("POST", "/api/processes", sleeper("after"))).status).toBe(201)
    expect((await listOf(call)()).map((row) => row.name)).toEqual(["after"])
  })

  it("DELETE /api/processes with both id and status is BAD_REQUEST on field id", async () => {
    const { call } = await started()
    await call("POST", "/api/processes", sleeper("kept"))
    const reply = await call("DELETE", "/api/processes?id=kept&status=stopped")
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe("BAD_REQUEST")
    expect(reply.body.error.details.field).toBe("id")
    expect((await listOf(call)()).map((row) => row.name)).toEqual(["kept"])
  })
})
