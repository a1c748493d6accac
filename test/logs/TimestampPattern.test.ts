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
    for (const pattern of ["YYYY-MM-DD HH:mm:ss.SSS Z", "YYYY/MM/DD HH:mm:ss.SSS", "DD.MM.YYYY HH:mm:ss.SSS ZZ", "[at] YYYYMMDD-HHmmss.SSS"]) {
      const line = `${timestampFormatter(pattern)!(instant)} the message`
      expect(textLineParser(pattern)(line), pattern).toEqual({ timestamp: "2026-11-21T13:57:01.123Z", ms: instant, message: "the message" })
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
