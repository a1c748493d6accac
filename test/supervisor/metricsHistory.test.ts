import { describe, expect, it } from "@effect/vitest"
import { appendPoint, HISTORY_LENGTH } from "../../src/supervisor/metricsSampling"

describe("a row's metrics history", () => {
  it("keeps the last HISTORY_LENGTH points, oldest first, without changing the history it was given", () => {
    let history: ReadonlyArray<number> = []
    for (let point = 1; point <= HISTORY_LENGTH + 5; point++) {
      const before = history
      const copy = [...before]
      history = appendPoint(before, point)
      expect(before).toEqual(copy)
      expect(history.at(-1)).toBe(point)
      expect(history.length).toBe(Math.min(point, HISTORY_LENGTH))
    }
    expect(history[0]).toBe(6)
    expect(history).toEqual(Array.from({ length: HISTORY_LENGTH }, (_, i) => i + 6))
  })
})
