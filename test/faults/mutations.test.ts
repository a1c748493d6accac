/**
 * Fault suite, mutation storms (issue 11, defect 2; figures in docs/reliability.md): overlapping
 * create/start/stop/restart/reload/delete requests over HTTP and from parallel CLI commands. After
 * every storm, `list` must name exactly the processes that run under the daemon: 0 untracked.
 */
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { makeTestDaemon, type TestDaemon } from "../support/daemon"
import {
  acceptable,
  descendantsOfPid,
  httpStorm,
  listOf,
  reloadRacingDelete,
  restartRacingDelete,
  settle
} from "../support/storm"

let daemon: TestDaemon | undefined
let sandbox: Sandbox | undefined
afterEach(async () => {
  await daemon?.cleanup()
  sandbox?.cleanup()
  daemon = undefined
  sandbox = undefined
})

const started = async () => {
  daemon = makeTestDaemon()
  await daemon.start()
  const pid = daemon.pid()!
  return { call: daemon.call, running: () => descendantsOfPid(pid) }
}

const report = (
  what: string,
  outcome: { untracked: ReadonlyArray<number>; ghosts: ReadonlyArray<number>; running: ReadonlyArray<number> },
  statuses: ReadonlyArray<number>
) => {
  const counts: Record<number, number> = {}
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1
  console.log(
    `[mutations] ${what}: ${outcome.running.length} running, ${outcome.untracked.length} untracked, ${outcome.ghosts.length} ghost rows; replies ${JSON.stringify(counts)}`
  )
}

describe("mutation storms", () => {
  it("10 × create, then restart and delete at the same moment: nothing is left running", async () => {
    const { call, running } = await started()
    const statuses = await restartRacingDelete(call, 10)
    const outcome = await settle(listOf(call), running)
    report("restart racing delete ×10", outcome, statuses)
    expect(statuses.filter((status) => !acceptable(status))).toEqual([])
    expect(outcome.untracked).toEqual([])
    expect(outcome.ghosts).toEqual([])
    expect(await listOf(call)()).toEqual([])
  })

  it("reload racing delete ×10: nothing is left running", async () => {
    const { call, running } = await started()
    const statuses = await reloadRacingDelete(call, 10)
    const outcome = await settle(listOf(call), running)
    report("reload racing delete ×10", outcome, statuses)
    expect(statuses.filter((status) => !acceptable(status))).toEqual([])
    expect(outcome.untracked).toEqual([])
    expect(await listOf(call)()).toEqual([])
  })

  it("50 parallel HTTP mutations on 4 names, 4 rounds: list equals what runs", async () => {
    const { call, running } = await started()
    const statuses = await httpStorm(call, { size: 50, rounds: 4, names: ["a", "b", "c", "d"], seed: 11 })
    const outcome = await settle(listOf(call), running)
    report("50 HTTP × 4 rounds", outcome, statuses)
    expect(statuses.filter((status) => !acceptable(status))).toEqual([])
    expect(outcome.untracked).toEqual([])
    expect(outcome.ghosts).toEqual([])
  })

  it("20 parallel CLI start/restart/delete on 4 names: list equals what runs", async () => {
    sandbox = makeSandbox()
    const box = sandbox
    box.pmfx(["list"])
    const daemonPid = Number(require("node:fs").readFileSync(`${box.home}/daemon.pid`, "utf8").trim())
    const names = ["w", "x", "y", "z"]
    const verbs = ["start", "restart", "delete"]
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const name = names[i % 4]!
        const verb = verbs[Math.floor(i / 4) % 3]!
        return box.pmfxAsync(verb === "start" ? ["start", "sleep 1000", "--name", name] : [verb, name])
      })
    )
    const list = async () =>
      JSON.parse(box.pmfx(["list", "--json"]).stdout) as ReadonlyArray<{
        id: number
        name: string
        pid: number | null
        status: string
      }>
    const outcome = await settle(list, () => descendantsOfPid(daemonPid))
    report(
      "20 CLI",
      outcome,
      results.map((r) => r.code ?? -1)
    )
    expect(
      results
        .filter((r) => r.code !== 0 && !/not found|no process|already|deleted by another/i.test(r.stderr + r.stdout))
        .map((r) => r.stderr)
    ).toEqual([])
    expect(outcome.untracked).toEqual([])
    expect(outcome.ghosts).toEqual([])
  })
})
