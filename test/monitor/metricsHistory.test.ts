/**
 * MetricsHistory's ring buffers (docs/api.md, `metrics?history=`): the window asked for, oldest
 * first; at most 900 points per row whatever the rate; a row no sample has listed for 15 minutes
 * (stopped or deleted) loses its points.
 */
import { describe, expect, it } from "@effect/vitest"
import { HISTORY_CAPACITY, HISTORY_WINDOW_MS, makeMetricsHistory } from "../../src/monitor/MetricsHistory"

const T0 = Date.parse("2026-11-26T03:00:00.000Z")
const sample = (ms: number, rows: ReadonlyArray<readonly [id: number, cpu: number]>) => ({
  timestamp: new Date(ms).toISOString(),
  processes: rows.map(([id, cpu]) => ({ id, cpu_usage: cpu, memory_usage: 1000 + id }))
})

describe("MetricsHistory", () => {
  it("gives the points of the window asked for, oldest first, each row its own", () => {
    const history = makeMetricsHistory()
    for (let s = 0; s < 10; s++)
      history.record(
        sample(T0 + s * 1000, [
          [0, s],
          [1, 100 + s]
        ])
      )
    const now = T0 + 9 * 1000
    expect(history.history(0, 15 * 60_000, now).map((p) => p.cpu_usage)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(history.history(0, 3000, now).map((p) => p.cpu_usage)).toEqual([6, 7, 8, 9])
    expect(history.history(1, 1000, now)).toEqual([
      { timestamp: new Date(T0 + 8000).toISOString(), cpu_usage: 108, rss: 1001 },
      { timestamp: new Date(T0 + 9000).toISOString(), cpu_usage: 109, rss: 1001 }
    ])
    expect(history.history(7, 60_000, now)).toEqual([])
  })

  it("keeps at most 900 points per row, dropping the oldest, and never more than 15 minutes", () => {
    const history = makeMetricsHistory()
    // 2000 samples 100 ms apart (a fast rate): only the newest 900 stay.
    for (let s = 0; s < 2000; s++) history.record(sample(T0 + s * 100, [[0, s]]))
    const points = history.history(0, HISTORY_WINDOW_MS, T0 + 1999 * 100)
    expect(points.length).toBe(HISTORY_CAPACITY)
    expect(points[0]!.cpu_usage).toBe(1100)
    expect(points.at(-1)!.cpu_usage).toBe(1999)
    // A window longer than 15 minutes is cut to 15 minutes.
    const slow = makeMetricsHistory()
    for (let m = 0; m < 30; m++) slow.record(sample(T0 + m * 60_000, [[0, m]]))
    expect(slow.history(0, 60 * 60_000, T0 + 29 * 60_000).map((p) => p.cpu_usage)).toEqual([
      14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29
    ])
  })

  it("keeps every point in order as its ring grows, whatever the count (it starts small and doubles)", () => {
    for (const count of [1, 15, 16, 17, 33, 512, 513, 899, 900, 901, 1801]) {
      const history = makeMetricsHistory()
      for (let s = 0; s < count; s++) history.record(sample(T0 + s * 500, [[0, s]]))
      const points = history.history(0, HISTORY_WINDOW_MS, T0 + (count - 1) * 500)
      const kept = Math.min(count, HISTORY_CAPACITY)
      expect(points.map((p) => p.cpu_usage)).toEqual(Array.from({ length: kept }, (_, i) => count - kept + i))
      expect(points.at(-1)).toEqual({
        timestamp: new Date(T0 + (count - 1) * 500).toISOString(),
        cpu_usage: count - 1,
        rss: 1000
      })
    }
  })

  it("keeps a stopped row's last 15 minutes, then lets them go", () => {
    const history = makeMetricsHistory()
    history.record(
      sample(T0, [
        [0, 1],
        [1, 2]
      ])
    )
    // Row 1 stopped: the samples list row 0 only.
    history.record(sample(T0 + 10 * 60_000, [[0, 3]]))
    expect(history.history(1, HISTORY_WINDOW_MS, T0 + 10 * 60_000).length).toBe(1)
    history.record(sample(T0 + 16 * 60_000, [[0, 4]]))
    expect(history.history(1, HISTORY_WINDOW_MS, T0)).toEqual([])
    expect(history.history(0, HISTORY_WINDOW_MS, T0 + 16 * 60_000).map((p) => p.cpu_usage)).toEqual([3, 4])
  })
})
