import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readMemoryDetail } from "../../src/monitor/memoryDetail"
import { eventually, holdMemory, pidOf, spawnNode } from "./processes"

const MB = 1024 * 1024
const impossiblePid = 4_194_305

describe("readMemoryDetail", () => {
  it.effect("reads this process's memory in bytes", () =>
    Effect.gen(function* () {
      const detail = yield* readMemoryDetail([process.pid])
      expect(detail.rss).toBeGreaterThan(10 * MB)
      expect(detail.vms).toBeGreaterThan(detail.rss)
      expect(detail.data).toBeGreaterThan(0)
      expect(detail.swap).toBeGreaterThanOrEqual(0)
      expect(detail.shared).toBeGreaterThanOrEqual(0)
      expect(detail.rss % 1024).toBe(0)
    })
  )

  it.effect("skips pids that do not exist", () =>
    Effect.gen(function* () {
      expect(yield* readMemoryDetail([impossiblePid])).toStrictEqual({ rss: 0, vms: 0, data: 0, swap: 0, shared: 0 })
      const alone = yield* readMemoryDetail([process.pid])
      const withGone = yield* readMemoryDetail([impossiblePid, process.pid])
      // The same process read twice: close, not necessarily equal.
      expect(Math.abs(withGone.rss - alone.rss)).toBeLessThan(10 * MB)
    })
  )

  it.scopedLive("sums over several pids", () =>
    Effect.gen(function* () {
      const child = yield* spawnNode(holdMemory(50))
      const childOnly = yield* eventually(
        readMemoryDetail([pidOf(child)]),
        (detail) => detail.rss >= 50 * MB,
        "the child's 50 MB"
      )
      const both = yield* readMemoryDetail([pidOf(child), process.pid])
      expect(both.rss).toBeGreaterThan(childOnly.rss + 10 * MB)
      expect(both.vms).toBeGreaterThan(childOnly.vms)
    })
  )
})
