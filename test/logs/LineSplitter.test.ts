import { describe, expect, it } from "@effect/vitest"
import { LineSplitter, MAX_LINE_BYTES, stringLineSplitter } from "../../src/logs/LineSplitter"

const split = (chunks: ReadonlyArray<Buffer | string>, max?: number): Array<string> => {
  const lines: Array<string> = []
  const splitter = stringLineSplitter((line) => lines.push(line), max)
  for (const chunk of chunks) splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)
  splitter.flush()
  return lines
}

/** `bytes` cut into pieces at every offset in `cuts`. */
const cutAt = (bytes: Buffer, cuts: ReadonlyArray<number>): Array<Buffer> => {
  const pieces: Array<Buffer> = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut))
    from = cut
  }
  return pieces
}

describe("LineSplitter", () => {
  it("splits on newlines, drops a \\r before them and keeps empty lines", () => {
    expect(split(["a\nb\r\n\nc\n"])).toEqual(["a", "b", "", "c"])
  })

  it("joins a line spread over chunks and flushes a partial last line", () => {
    expect(split(["par", "tial\nsec", "ond", " end"])).toEqual(["partial", "second end"])
  })

  it("emits nothing for an empty stream or an ending newline", () => {
    expect(split([])).toEqual([])
    expect(split(["x\n"])).toEqual(["x"])
  })

  it("decodes multi-byte characters cut at every possible byte offset", () => {
    const text = "é€😀日本\n∑x\n"
    const bytes = Buffer.from(text)
    for (let a = 1; a < bytes.length; a++) {
      for (let b = a + 1; b < bytes.length; b++) {
        expect(split(cutAt(bytes, [a, b]))).toEqual(["é€😀日本", "∑x"])
      }
    }
  })

  it("cuts a long line into pieces of the maximum size whatever the chunking", () => {
    const line = "z".repeat(3 * MAX_LINE_BYTES + 100)
    const expected = [MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES, 100]
    expect(split([`${line}\n`]).map((l) => l.length)).toEqual(expected)
    expect(split(cutAt(Buffer.from(line), [1000, 70000, 70001, 150000])).map((l) => l.length)).toEqual(expected)
  })

  it("never holds more than the maximum for an unterminated line", () => {
    const lines: Array<string> = []
    const splitter = stringLineSplitter((line) => lines.push(line), 10)
    for (let i = 0; i < 100; i++) {
      splitter.push(Buffer.from("abc"))
      expect(splitter.buffered).toBeLessThanOrEqual(10)
    }
    splitter.flush()
    expect(lines.join("")).toBe("abc".repeat(100))
  })

  it("does not split a line of exactly the maximum, even with \\r\\n cut between chunks", () => {
    expect(split(["y".repeat(10), "\n"], 10)).toEqual(["y".repeat(10)])
    expect(split(["y".repeat(10) + "\r", "\n"], 10)).toEqual(["y".repeat(10)])
  })

  it("cuts long lines at a character boundary", () => {
    // Three-byte characters: a 10-byte piece would cut the fourth character, so pieces are 9 bytes.
    const pieces = split(["€".repeat(7) + "\n"], 10)
    expect(pieces).toEqual(["€€€", "€€€", "€"])
    const unterminated = split(["€€", "€€", "€€", "€"], 10)
    expect(unterminated).toEqual(["€€€", "€€€", "€"])
  })

  it("flags every piece after the first of a long line as continued, whatever the chunking", () => {
    const pieces = (chunks: ReadonlyArray<string>) => {
      const out: Array<string> = []
      const splitter = new LineSplitter(
        (buffer, start, end, continued) => out.push(`${continued ? "+" : ""}${buffer.toString("utf8", start, end)}`),
        4
      )
      for (const chunk of chunks) splitter.push(Buffer.from(chunk))
      splitter.flush()
      return out
    }
    const expected = ["abcd", "+efgh", "+ij", "xy", "abcd", "+e"]
    expect(pieces(["abcdefghij\nxy\nabcde"])).toEqual(expected)
    expect(pieces(["abc", "defg", "hij\nx", "y\na", "bcde"])).toEqual(expected)
    expect(pieces("abcdefghij\nxy\nabcde".split(""))).toEqual(expected)
    // A line of exactly the limit, or one whose last piece is only its \r, is one record.
    expect(pieces(["abcd\r\n", "abcd\r", "\n", "z\n"])).toEqual(["abcd", "abcd", "z"])
    expect(pieces(["abcdefgh\r\n", "z\n"])).toEqual(["abcd", "+efgh", "z"])
  })
})
