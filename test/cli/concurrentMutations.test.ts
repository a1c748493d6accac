/**
 * Parallel CLI commands on the same apps (issue 11, defects 2 and 13): `list` ends equal to the
 * processes that run, and `pmfx delete` reports the ids it removed, even when other deletes of
 * the same rows run at the same time. The 20-command storm is in test/faults/mutations.test.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { descendantsOfPid, settle } from "../support/storm"

let sandbox: Sandbox | undefined
afterEach(() => {
  sandbox?.cleanup()
  sandbox = undefined
})

describe("parallel pmfx commands", () => {
  it("8 start/restart/delete on 2 names: list equals what runs", async () => {
    sandbox = makeSandbox()
    const box = sandbox
    expect(box.pmfx(["list"]).code).toBe(0)
    const daemonPid = Number(fs.readFileSync(path.join(box.home, "daemon.pid"), "utf8").trim())
    const verbs = ["start", "restart", "delete", "start"]
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const name = i % 2 === 0 ? "p" : "q"
        const verb = verbs[Math.floor(i / 2)]!
        return box.pmfxAsync(verb === "start" ? ["start", "sleep 1000", "--name", name] : [verb, name])
      })
    )
    // Each command either did its job or said why not (not found, already exists or running).
    for (const result of results)
      if (result.code !== 0)
        expect(result.stderr + result.stdout).toMatch(/not found|no process|already|deleted by another/i)
    const list = async () =>
      JSON.parse(box.pmfx(["list", "--json"]).stdout) as ReadonlyArray<{
        id: number
        name: string
        pid: number | null
        status: string
      }>
    const outcome = await settle(list, () => descendantsOfPid(daemonPid))
    expect(outcome.untracked).toEqual([])
    expect(outcome.ghosts).toEqual([])
  })

  it("three deletes of one two-instance app report ids 0 and 1 once in all", async () => {
    sandbox = makeSandbox()
    const box = sandbox
    const started = box.pmfx(["start", "sleep 1000", "--name", "pair", "-i", "2", "--json"])
    expect(started.code, started.stderr).toBe(0)
    const results = await Promise.all([0, 1, 2].map(() => box.pmfxAsync(["delete", "pair", "--json"])))
    const reported: Array<number> = []
    for (const result of results) {
      if (result.code === 0) reported.push(...(JSON.parse(result.stdout) as { deleted: Array<number> }).deleted)
      else expect(result.stdout + result.stderr).toMatch(/PROCESS_NOT_FOUND|deleted by another request|no process/)
    }
    expect(reported.sort()).toEqual([0, 1])
    // Nothing else broke: the daemon still starts and deletes, and says what it deleted.
    expect(box.pmfx(["start", "sleep 1000", "--name", "solo"]).code).toBe(0)
    expect(box.pmfx(["delete", "solo"]).stdout).toContain("deleted 1 process (id 2)")
  })
})
