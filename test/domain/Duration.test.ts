import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import {
  DurationMs,
  DurationSecondsMs,
  durationHint,
  durationSecondsHint,
  formatDuration,
  formatUptime,
  parseDuration
} from "../../src/domain/Duration"

const right = (input: unknown, bare?: "ms" | "s") => {
  const result = parseDuration(input, bare)
  if (Either.isLeft(result)) throw new Error(`expected ${JSON.stringify(input)} to parse, got: ${result.left}`)
  return result.right
}

const left = (input: unknown, bare?: "ms" | "s") => {
  const result = parseDuration(input, bare)
  if (Either.isRight(result)) throw new Error(`expected ${String(input)} to fail, got ${result.right}`)
  return result.left
}

describe("parseDuration", () => {
  it("reads every unit suffix", () => {
    expect(right("500ms")).toBe(500)
    expect(right("10s")).toBe(10_000)
    expect(right("1m")).toBe(60_000)
    expect(right("2h")).toBe(7_200_000)
    expect(right("1d")).toBe(86_400_000)
  })

  it("reads fractional amounts and rounds to whole milliseconds", () => {
    expect(right("1.5s")).toBe(1_500)
    expect(right("0.5m")).toBe(30_000)
    expect(right("1.5h")).toBe(5_400_000)
    expect(right("0.0015s")).toBe(2)
    expect(right("2.4ms")).toBe(2)
  })

  it("accepts upper-case units, a space before the unit, and surrounding whitespace", () => {
    expect(right("10S")).toBe(10_000)
    expect(right("500MS")).toBe(500)
    expect(right("10 s")).toBe(10_000)
    expect(right("  2h  ")).toBe(7_200_000)
    expect(right("\t1m\n")).toBe(60_000)
  })

  it("treats a bare number as milliseconds by default", () => {
    expect(right(1500)).toBe(1500)
    expect(right(0)).toBe(0)
    expect(right(1.6)).toBe(2)
  })

  it("treats a numeric string as milliseconds by default", () => {
    expect(right("250")).toBe(250)
    expect(right(" 250 ")).toBe(250)
    expect(right("0")).toBe(0)
  })

  it("treats a bare number as seconds when the bare unit is s", () => {
    expect(right(30, "s")).toBe(30_000)
    expect(right("30", "s")).toBe(30_000)
    expect(right(1.5, "s")).toBe(1_500)
  })

  it("honours an explicit suffix even when the bare unit is s", () => {
    expect(right("500ms", "s")).toBe(500)
    expect(right("2m", "s")).toBe(120_000)
    expect(right("10s", "s")).toBe(10_000)
  })

  it("rejects words and negative durations, quoting the value", () => {
    const words = left("ten seconds")
    expect(words).toContain(`"ten seconds"`)
    expect(words).toContain(durationHint)
    expect(left("-5s")).toContain(`"-5s"`)
    expect(left("5 seconds")).toContain(`"5 seconds"`)
    expect(left("5x")).toContain(`"5x"`)
    expect(left("")).toContain(`""`)
    expect(left("1.s")).toContain(`"1.s"`)
    expect(left(".5s")).toContain(`".5s"`)
  })

  it("rejects negative and non-finite numbers, naming the value", () => {
    expect(left(-1)).toContain("-1")
    expect(left(-1)).toContain(durationHint)
    expect(left(NaN)).toContain("NaN")
    expect(left(Infinity)).toContain("Infinity")
    expect(left(-0.5, "s")).toContain(durationSecondsHint)
  })

  it("rejects non-string, non-number values, describing them", () => {
    const bool = left(true)
    expect(bool).toContain("true")
    expect(bool).toContain("boolean")
    expect(bool).toContain(durationHint)
    expect(left(null)).toContain("null")
    expect(left({})).toContain("an object")
    expect(left([1])).toContain("an array")
    expect(left(undefined)).toContain("undefined")
  })

  it("uses the seconds hint in messages when the bare unit is s", () => {
    expect(left("soon", "s")).toContain(durationSecondsHint)
    expect(left("soon", "s")).not.toContain(durationHint)
  })
})

describe("formatDuration", () => {
  it("picks the largest unit that divides the duration exactly", () => {
    expect(formatDuration(86_400_000)).toBe("1d")
    expect(formatDuration(172_800_000)).toBe("2d")
    expect(formatDuration(7_200_000)).toBe("2h")
    expect(formatDuration(60_000)).toBe("1m")
    expect(formatDuration(90_000)).toBe("90s")
    expect(formatDuration(10_000)).toBe("10s")
    expect(formatDuration(1500)).toBe("1500ms")
    expect(formatDuration(999)).toBe("999ms")
    expect(formatDuration(0)).toBe("0ms")
  })

  it("round-trips through parseDuration", () => {
    for (const ms of [0, 1, 500, 1000, 1500, 60_000, 90_000, 3_600_000, 5_400_000, 86_400_000, 90_061_001]) {
      expect(right(formatDuration(ms))).toBe(ms)
    }
  })
})

describe("formatUptime", () => {
  it("formats hours, minutes and seconds", () => {
    expect(formatUptime(0)).toBe("0h 0m 0s")
    expect(formatUptime(999)).toBe("0h 0m 0s")
    expect(formatUptime(1000)).toBe("0h 0m 1s")
    expect(formatUptime(59_999)).toBe("0h 0m 59s")
    expect(formatUptime(60_000)).toBe("0h 1m 0s")
    expect(formatUptime(3_725_000)).toBe("1h 2m 5s")
    expect(formatUptime(3_725_999)).toBe("1h 2m 5s")
  })

  it("keeps counting hours past a day", () => {
    expect(formatUptime(90_000_000)).toBe("25h 0m 0s")
  })

  it("clamps negative values to zero", () => {
    expect(formatUptime(-5000)).toBe("0h 0m 0s")
  })
})

describe("DurationMs schema", () => {
  const decode = Schema.decodeUnknownEither(DurationMs)

  it("decodes strings and numbers to milliseconds", () => {
    expect(decode("10s")).toStrictEqual(Either.right(10_000))
    expect(decode("250")).toStrictEqual(Either.right(250))
    expect(decode(250)).toStrictEqual(Either.right(250))
    expect(decode(" 1.5s ")).toStrictEqual(Either.right(1_500))
  })

  it("fails with the parser's message", () => {
    const result = decode("ten seconds")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.message).toContain(`"ten seconds" is not ${durationHint}`)
    }
    expect(Either.isLeft(decode(-1))).toBe(true)
    expect(Either.isLeft(decode(null))).toBe(true)
    expect(Either.isLeft(decode({}))).toBe(true)
  })

  it("encodes milliseconds unchanged", () => {
    expect(Schema.encodeSync(DurationMs)(1500)).toBe(1500)
  })
})

describe("DurationSecondsMs schema", () => {
  const decode = Schema.decodeUnknownEither(DurationSecondsMs)

  it("decodes bare numbers as seconds", () => {
    expect(decode(30)).toStrictEqual(Either.right(30_000))
    expect(decode("30")).toStrictEqual(Either.right(30_000))
  })

  it("decodes suffixed strings by their unit", () => {
    expect(decode("1m")).toStrictEqual(Either.right(60_000))
    expect(decode("500ms")).toStrictEqual(Either.right(500))
  })

  it("fails with the seconds hint", () => {
    const result = decode("often")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain(durationSecondsHint)
    expect(Either.isLeft(decode(true))).toBe(true)
  })
})
