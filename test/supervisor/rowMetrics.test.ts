import { describe, expect, it } from "@effect/vitest"
import { initialRowState, type RowState } from "../../src/supervisor/Row"
import { currentFigures, makeRowMetrics } from "../../src/supervisor/RowMetrics"

const state = (pid: number | null): RowState => ({
  ...initialRowState(null, false),
  status: pid === null ? "stopped" : "online",
  pid
})

describe("a row's figures beside its state", () => {
  it("are the last sample's while the sampled process is the row's", () => {
    const metrics = makeRowMetrics()
    Object.assign(metrics, { pid: 41, cpu: 12.5, memory: 30_000_000 })
    expect(currentFigures(metrics, state(41))).toStrictEqual({ pid: 41, cpu: 12.5, memory: 30_000_000, history: [] })
  })

  it("are 0 and 0 without a live process, for a new process not sampled yet, and before any sample", () => {
    const metrics = makeRowMetrics()
    expect(currentFigures(metrics, state(41))).toStrictEqual({ cpu: 0, memory: 0 })
    Object.assign(metrics, { pid: 41, cpu: 12.5, memory: 30_000_000 })
    // Stopped (pid null), and restarted as pid 42 before the next sample.
    expect(currentFigures(metrics, state(null))).toStrictEqual({ cpu: 0, memory: 0 })
    expect(currentFigures(metrics, state(42))).toStrictEqual({ cpu: 0, memory: 0 })
  })
})
