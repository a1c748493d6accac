import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { parseTimeBound } from "../../src/logs/parseTimeBound"

const now = Date.UTC(2026, 10, 21, 12, 0, 0, 0)

describe("parseTimeBound", () => {
  it("reads relative times as that long ago", () => {
    expect(parseTimeBound("30s", now)).toEqual(Option.some(now - 30_000))
    expect(parseTimeBound("10m", now)).toEqual(Option.some(now - 600_000))
    expect(parseTimeBound("2h", now)).toEqual(Option.some(now - 7_200_000))
    expect(parseTimeBound("1d", now)).toEqual(Option.some(now - 86_400_000))
    expect(parseTimeBound("1.5h ago", now)).toEqual(Option.some(now - 5_400_000))
    expect(parseTimeBound("500ms", now)).toEqual(Option.some(now - 500))
  })

  it("reads ISO date-times with an offset", () => {
    expect(parseTimeBound("2026-11-21T13:57:01.123Z", now)).toEqual(Option.some(Date.UTC(2026, 10, 21, 13, 57, 1, 123)))
    expect(parseTimeBound("2026-11-21T13:57:01+02:00", now)).toEqual(Option.some(Date.UTC(2026, 10, 21, 11, 57, 1)))
    expect(parseTimeBound("2026-11-21 13:57-0130", now)).toEqual(Option.some(Date.UTC(2026, 10, 21, 15, 27)))
  })

  it("reads dates and date-times without an offset as local time", () => {
    expect(parseTimeBound("2026-11-21", now)).toEqual(Option.some(new Date(2026, 10, 21).getTime()))
    expect(parseTimeBound("2026-11-21T08:30:05", now)).toEqual(Option.some(new Date(2026, 10, 21, 8, 30, 5).getTime()))
  })

  it("refuses anything else", () => {
    for (const text of [
      "",
      "yesterday",
      "10",
      "10x",
      "-5m",
      "2026-13-01",
      "2026-02-30",
      "2026-11-21T25:00",
      "21/11/2026"
    ]) {
      expect(parseTimeBound(text, now), text).toEqual(Option.none())
    }
  })
})
