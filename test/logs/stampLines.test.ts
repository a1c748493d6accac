import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { lineFormatter, textPrefix } from "../../src/logs/formatLine"
import { LineSplitter } from "../../src/logs/LineSplitter"
import { LogPipe } from "../../src/logs/LogPipe"
import { RotatingFile } from "../../src/logs/RotatingFile"
import { stampLines } from "../../src/logs/stampLines"
import { eventually, fileLines, freshHome, isoMessage, testApp } from "./helpers"

/** What the splitter stores for the chunk's complete lines: `prefix + line + "\n"` each. */
const bySplitter = (chunk: Buffer, prefix: Buffer): Buffer => {
  const parts: Array<Buffer> = []
  new LineSplitter((buffer, start, end) => {
    parts.push(prefix, buffer.subarray(start, end), Buffer.from("\n"))
  }).push(chunk)
  return Buffer.concat(parts)
}

const samePrefix = Buffer.from("2026-11-26T10:00:00.000Z ")

describe("stampLines", () => {
  it.each([
    ["plain lines", "one\ntwo\nthree\n"],
    ["empty lines", "\n\n\nx\n\n"],
    ["CRLF endings and a lone CR inside a line", "a\r\nb\rc\r\n\r\n\rd\n"],
    ["multi-byte characters", "héllo wörld ✓\n日本語\r\n🙂\n"],
    ["an unterminated end", "first\nsecond\npartial line"],
    ["a chunk of 5,000 newlines only", "\n".repeat(5000)],
    ["a chunk of CRLF only", "\r\n".repeat(3000)]
  ])("stores %s as the line splitter does", (_name, text) => {
    const chunk = Buffer.from(text, "utf8")
    for (const prefix of [samePrefix, Buffer.alloc(0), Buffer.from("x")]) {
      const stamped = stampLines(chunk, prefix)
      expect(stamped.batch?.toString("utf8") ?? "").toBe(bySplitter(chunk, prefix).toString("utf8"))
      expect(stamped.consumed).toBe(chunk.lastIndexOf(0x0a) + 1)
      expect(stamped.lines).toBe(text.split("\n").length - 1)
      // With a head (the line the previous chunk left open, already stamped) in front, in one buffer.
      const head = Buffer.from("2026-11-26T09:59:59.999Z held line\n")
      const withHead = stampLines(chunk, prefix, head)
      expect(withHead.batch?.toString("utf8")).toBe(head.toString("utf8") + bySplitter(chunk, prefix).toString("utf8"))
      expect(withHead.consumed).toBe(stamped.consumed)
    }
  })

  it("returns no batch and consumes nothing for a chunk without a newline", () => {
    const stamped = stampLines(Buffer.from("no newline here"), samePrefix)
    expect(stamped).toEqual({ batch: null, lines: 0, consumed: 0, byLoop: false })
  })

  it("stores lines through the regular-expression path byte for byte: any bytes, `$` patterns in the prefix, a CR after the last line", () => {
    // Not UTF-8 (0xff, 0xfe, a cut 3-byte character) must come out as it went in.
    const raw = Buffer.concat([
      Buffer.from("a\xffb\n", "latin1"),
      Buffer.from([0xe2, 0x9c, 0x0a, 0xfe, 0x0a]),
      Buffer.from("z\n\rtail")
    ])
    for (const prefix of [samePrefix, Buffer.from("$& $1 $$ $` $' $<x> "), Buffer.from("é→ ")]) {
      const stamped = stampLines(raw, prefix)
      expect(stamped.batch?.equals(bySplitter(raw, prefix))).toBe(true)
      expect(stamped.lines).toBe(4)
      expect(stamped.consumed).toBe(raw.lastIndexOf(0x0a) + 1)
    }
  })

  it("stores a full 64 KiB read of a flood as the line splitter does, with and without a head", () => {
    let text = ""
    for (let i = 0; text.length < 70_000; i++) text += `line ${i} ${"x".repeat(i % 97)}\n`
    const chunk = Buffer.from(text).subarray(0, 65_536)
    const head = Buffer.from("2026-11-26T09:59:59.999Z held line\n")
    const stamped = stampLines(chunk, samePrefix, head)
    expect(stamped.batch?.equals(Buffer.concat([head, bySplitter(chunk, samePrefix)]))).toBe(true)
    expect(stamped.lines).toBe(chunk.toString().split("\n").length - 1)
  })

  it("stores many CRLF lines without a prefix, each line shorter than it came (the CR goes)", () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `l${i}${"y".repeat(i % 7)}`)
    const chunk = Buffer.from(lines.map((line) => `${line}\r\n`).join(""))
    expect(stampLines(chunk, Buffer.alloc(0)).batch?.toString()).toBe(lines.map((line) => `${line}\n`).join(""))
  })
})

describe("LogPipe's fast path", () => {
  it.live("stores every line once and in order whatever the chunk boundaries, with listeners coming and going", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "chunks.log")
      const rotating = yield* RotatingFile.open(file, { maxSize: null, maxFiles: 1, compress: false, daily: false })
      const app = testApp()
      const source = new PassThrough()
      // Lines of every length, CRLF and LF, multi-byte text; one line over the 300-byte limit.
      const lines = Array.from({ length: 4000 }, (_, i) =>
        i === 1234 ? `long ${"z".repeat(700)}` : `line ${i} ${"é".repeat(i % 13)}${"x".repeat((i * 7) % 90)}`
      )
      const text = lines.map((line, i) => (i % 5 === 0 ? `${line}\r\n` : `${line}\n`)).join("")
      const heard: Array<string> = []
      let listening = false
      const pipe = new LogPipe(
        source,
        [rotating],
        { prefix: textPrefix(app), line: lineFormatter(app) },
        "out",
        0,
        (message, _ms, continued) => heard.push(continued ? `+${message}` : message),
        () => listening,
        300
      )
      const bytes = Buffer.from(text, "utf8")
      // Chunk sizes from 1 byte to well past the limit (those take the splitter's path).
      let seed = 7
      for (let at = 0; at < bytes.length; ) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        const size = 1 + (seed % 700)
        listening = seed % 3 === 0
        source.write(Buffer.from(bytes.subarray(at, at + size)))
        at += size
      }
      source.end()
      yield* eventually(() => pipe.ended)
      yield* rotating.close
      const stored = fileLines(file)
        .map((line) => line.replace(/^(\S+)\+ /, "$1 "))
        .map(isoMessage)
      // The long line is stored as pieces of at most 300 bytes: join them back.
      const joined: Array<string> = []
      const raw = fileLines(file)
      for (let i = 0; i < raw.length; i++) {
        if (/^\S+\+ /.test(raw[i]!)) joined[joined.length - 1] += stored[i]
        else joined.push(stored[i]!)
      }
      expect(joined).toEqual(lines)
      // What the listener heard is a subset of the lines, in order.
      let next = 0
      for (const message of heard.filter((m) => !m.startsWith("+"))) {
        if (message.startsWith("long ")) continue // the first piece of the long line
        const found = lines.indexOf(message, next)
        expect(found).toBeGreaterThanOrEqual(next)
        next = found + 1
      }
    })
  )
})
