import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ProcStat, readProcessTable } from "../../src/monitor/procfs"
import { descendantsOf } from "../../src/monitor/processTree"
import { eventually, pidOf, spawnGroup } from "./processes"

const tableOf = (links: ReadonlyArray<readonly [pid: number, ppid: number]>): ReadonlyMap<number, ProcStat> =>
  new Map(
    links.map(([pid, ppid]) => [
      pid,
      { pid, ppid, pgrp: pid, state: "S", utime: 0, stime: 0, startTime: 0, rss: 0, threads: 1 }
    ])
  )

describe("descendantsOf", () => {
  it("lists the root, then its descendants at every depth, and nothing else", () => {
    const table = tableOf([
      [1, 0],
      [10, 1],
      [11, 10],
      [12, 10],
      [13, 12],
      [20, 1],
      [21, 20]
    ])
    expect(descendantsOf(10, table)).toStrictEqual([10, 11, 12, 13])
    expect(descendantsOf(13, table)).toStrictEqual([13])
  })

  it("is empty when the root has exited", () => {
    expect(
      descendantsOf(
        99,
        tableOf([
          [1, 0],
          [100, 99]
        ])
      )
    ).toStrictEqual([])
  })

  it("visits each pid once when parent links form a cycle", () => {
    const table = tableOf([
      [5, 7],
      [6, 5],
      [7, 6],
      [8, 8]
    ])
    expect(descendantsOf(5, table)).toStrictEqual([5, 6, 7])
    expect(descendantsOf(8, table)).toStrictEqual([8])
  })

  it.scopedLive("includes the grandchildren of an sh -c wrapper", () =>
    Effect.gen(function* () {
      // sh -> sh -> sleep: the grandchild is what a wrapper really runs.
      const wrapper = yield* spawnGroup("sh", ["-c", `sh -c "sleep 30; exit"; exit`])
      const root = pidOf(wrapper)
      const table = yield* eventually(
        readProcessTable(),
        (t) => descendantsOf(root, t).length === 3,
        "the wrapper's three processes"
      )
      const [leader, child, grandchild] = descendantsOf(root, table)
      expect(leader).toBe(root)
      expect(table.get(child ?? 0)?.ppid).toBe(root)
      expect(table.get(grandchild ?? 0)?.ppid).toBe(child)
    })
  )
})
