import { describe, expect, it } from "@effect/vitest"
import { ISO_DATE_FORMAT } from "../../src/domain/AppDefinition"
import { textLineParser, timestampFormatter } from "../../src/logs/TimestampPattern"

const instant = Date.UTC(2026, 10, 21, 13, 57, 1, 123)

const pad = (n: number, w = 2) => String(n).padStart(w, "0")

describe("timestampFormatter", () => {
  it("renders the default pattern as ISO 8601 UTC", () => {
    expect(timestampFormatter(ISO_DATE_FORMAT)!(instant)).toBe("2026-11-21T13:57:01.123Z")
  })

  it("renders custom patterns in local time with an offset", () => {
    const local = new Date(instant)
    const minutes = -local.getTimezoneOffset()
    const offset = `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`
    const expected =
      `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ` +
      `${pad(local.getHours())}:${pad(local.getMinutes())}:${pad(local.getSeconds())}.${pad(local.getMilliseconds(), 3)} ${offset}`
    expect(timestampFormatter("YYYY-MM-DD HH:mm:ss.SSS Z")!(instant)).toBe(expected)
    expect(timestampFormatter("[Day] DD")!(instant)).toBe(`Day ${pad(local.getDate())}`)
    expect(timestampFormatter("ZZ")!(instant)).toBe(offset.replace(":", ""))
  })

  it("is null for none", () => {
    expect(timestampFormatter("none")).toBeNull()
  })
})

describe("textLineParser", () => {
  it("reads the ISO prefix back", () => {
    expect(textLineParser(ISO_DATE_FORMAT)("2026-11-21T13:57:01.123Z hello world")).toEqual({
      timestamp: "2026-11-21T13:57:01.123Z",
      ms: instant,
      message: "hello world"
    })
  })

  it("treats a line without the prefix as all message", () => {
    const parsed = textLineParser(ISO_DATE_FORMAT)("no stamp here")
    expect(parsed.timestamp).toBeNull()
    expect(parsed.message).toBe("no stamp here")
    expect(textLineParser("none")("2026-11-21T13:57:01.123Z x").message).toBe("2026-11-21T13:57:01.123Z x")
  })

  it("round-trips custom patterns to the same instant", () => {
    for (const pattern of [
      "YYYY-MM-DD HH:mm:ss.SSS Z",
      "YYYY/MM/DD HH:mm:ss.SSS",
      "DD.MM.YYYY HH:mm:ss.SSS ZZ",
      "[at] YYYYMMDD-HHmmss.SSS"
    ]) {
      const line = `${timestampFormatter(pattern)!(instant)} the message`
      expect(textLineParser(pattern)(line), pattern).toEqual({
        timestamp: "2026-11-21T13:57:01.123Z",
        ms: instant,
        message: "the message"
      })
    }
  })

  it("reads the + of a continuation record after the timestamp, ISO or custom", () => {
    expect(textLineParser(ISO_DATE_FORMAT)("2026-11-21T13:57:01.123Z+ rest of it")).toEqual({
      timestamp: "2026-11-21T13:57:01.123Z",
      ms: instant,
      message: "rest of it",
      continued: true
    })
    const pattern = "YYYY-MM-DD HH:mm:ss.SSS Z"
    expect(textLineParser(pattern)(`${timestampFormatter(pattern)!(instant)}+ piece`)).toEqual({
      timestamp: "2026-11-21T13:57:01.123Z",
      ms: instant,
      message: "piece",
      continued: true
    })
    // A + inside the message of a whole line is just text.
    expect(textLineParser(ISO_DATE_FORMAT)("2026-11-21T13:57:01.123Z + x").continued).toBeUndefined()
  })

  it("gives no timestamp for a pattern without a date", () => {
    const line = `${timestampFormatter("HH:mm:ss")!(instant)} m`
    expect(textLineParser("HH:mm:ss")(line)).toEqual({ timestamp: null, ms: Number.NaN, message: "m" })
  })
})

describe("PM2's moment tokens (through dayjs)", () => {
  const local = new Date(instant)
  const hour12 = local.getHours() % 12 === 0 ? 12 : local.getHours() % 12
  const half = local.getHours() < 12 ? "AM" : "PM"

  it("renders hh, h, A, a, YY, MMM, MMMM, Do, ddd, X and x as moment does", () => {
    expect(timestampFormatter("hh:mm A")!(instant)).toBe(`${pad(hour12)}:${pad(local.getMinutes())} ${half}`)
    expect(timestampFormatter("h a")!(instant)).toBe(`${hour12} ${half.toLowerCase()}`)
    expect(timestampFormatter("YY-M-D")!(instant)).toBe(
      `${String(local.getFullYear()).slice(2)}-${local.getMonth() + 1}-${local.getDate()}`
    )
    expect(timestampFormatter("MMM MMMM")!(instant)).toBe(
      `${local.toLocaleString("en", { month: "short" })} ${local.toLocaleString("en", { month: "long" })}`
    )
    expect(timestampFormatter("ddd")!(instant)).toBe(local.toLocaleString("en", { weekday: "short" }))
    expect(timestampFormatter("Do")!(Date.UTC(2026, 10, 1, 12))).toBe("1st")
    expect(timestampFormatter("X")!(instant)).toBe(String(Math.floor(instant / 1000)))
    expect(timestampFormatter("x")!(instant)).toBe(String(instant))
  })

  it("renders each second (or millisecond, with SSS) afresh while caching within it", () => {
    const seconds = timestampFormatter("YYYY-MM-DD HH:mm:ss")!
    expect(seconds(instant)).toBe(seconds(instant + 500))
    expect(seconds(instant + 1000)).not.toBe(seconds(instant))
    expect(seconds(instant)).toBe(timestampFormatter("YYYY-MM-DD HH:mm:ss")!(instant))
    const millis = timestampFormatter("ss.SSS")!
    expect(millis(instant)).not.toBe(millis(instant + 1))
    expect(millis(instant + 1).endsWith("124")).toBe(true)
  })

  it("reads 12-hour, two-digit-year, month-name and Unix patterns back to the instant (to their precision)", () => {
    const second = Math.floor(instant / 1000) * 1000
    const minute = Math.floor(instant / 60_000) * 60_000
    const cases: ReadonlyArray<[string, number]> = [
      ["YYYY-MM-DD hh:mm:ss.SSS A Z", instant],
      ["YY-MM-DD hh:mm:ss a", second],
      ["DD MMM YYYY HH:mm:ss", second],
      ["MMMM Do YYYY, h:mm A ZZ", minute],
      ["dddd D/M/YYYY kk:mm:ss.SSS", instant],
      ["X", second],
      ["x", instant]
    ]
    for (const [pattern, expected] of cases) {
      const line = `${timestampFormatter(pattern)!(instant)} the message`
      expect(textLineParser(pattern)(line), `${pattern}: ${line}`).toEqual({
        timestamp: new Date(expected).toISOString(),
        ms: expected,
        message: "the message"
      })
    }
  })
})
