/**
 * The fast path of the log pipe (docs/architecture.md §7): every complete line of a chunk, stored as
 * `prefix + line + "\n"`, built into one new buffer with no per-line allocation and no per-line
 * call into Node's `Buffer` API. `LogPipe` takes it for a text log when no listener wants the lines
 * decoded (a line held from the previous chunk is completed by `LineSplitter` and passed in as
 * `head`); `LineSplitter` does the other cases.
 *
 * A chunk is a 64 KiB pipe read holding ~900 lines of a flooding child. Per line, `Buffer#copy`
 * validates its arguments in JS before copying, and a line handed out as a `subarray` is an object
 * for the young generation: ~90 ms of a 300,000-line flood went there. Here the chunk is copied
 * once into the tail of the output buffer, the prefix sits after it, and each line is moved into
 * place with `copyWithin` (a memmove inside one buffer). The layout keeps every write behind every
 * byte not yet read:
 *
 *     [ output grows from 0 →   …   | chunk copy, from lines × prefix.length | prefix ]
 *
 * Line `i` is written at most `i × prefix.length` bytes past where it was read from, and the chunk
 * copy starts `lines × prefix.length` bytes in (after `head`, when one is given, which shifts
 * both). Semantics are `LineSplitter`'s: lines end at `\n`, a `\r` just before it is dropped.
 *
 * That loop makes three calls into V8 builtins per line, fast only once TurboFan has compiled it
 * (~40 ms per 300,000 lines; ~95 ms under Sparkplug alone, ~200 ms interpreted). A chunk stamped
 * with a non-empty prefix (the text logs' default) takes `stampByRegExp` instead: the lines read as one
 * latin1 string (a byte per character, so any bytes round-trip), one global `replace` of `\n` by
 * `\n + prefix` — the per-line work done by the regular-expression engine's native code whatever
 * tier the caller runs in — and the result written back as latin1 (a chunk with `\r` in it has its
 * `\r\n` turned into `\n` by one more `replace` first): ~30 ms per 300,000 lines with or
 * without TurboFan (docs/benchmarks.md, "The log path, a third pass"). The daemon runs its log path
 * without TurboFan (src/daemon/optimizingCompilers.ts).
 */

const LF = 0x0a
const CR = 0x0d

/** Where each line's content ends in the chunk (before its `\r\n` or `\n`); grown as needed, shared. */
let lineEnds = new Int32Array(1024)

export interface StampedLines {
  /** The stored bytes of `head` and the complete lines; null when there are none. */
  readonly batch: Buffer | null
  /** Complete lines in it. */
  readonly lines: number
  /** Bytes of the chunk the lines took: what follows is an unterminated line. */
  readonly consumed: number
  /** Whether they went through the loop, JS work per line (the regular-expression path does none). */
  readonly byLoop: boolean
}

const NONE: StampedLines = { batch: null, lines: 0, consumed: 0, byLoop: false }

/**
 * `head`: bytes to store before the chunk's lines in the same buffer (the line the previous chunk
 * left unterminated, already stamped), so a chunk still makes one write.
 */
export const stampLines = (chunk: Buffer, prefix: Buffer, head: Buffer | null = null): StampedLines => {
  const last = chunk.lastIndexOf(LF)
  if (last === -1) return head === null ? NONE : { batch: head, lines: 0, consumed: 0, byLoop: false }
  if (prefix.length > 0) return stampByRegExp(chunk, last + 1, prefix, head)
  return stampByLoop(chunk, prefix, head)
}

const NEWLINE = /\n/g
const CRLF = /\r\n/g
let lastPrefix: Buffer | null = null
let lastPrefixText = ""
let lastReplacement = ""

/** `chunk`'s first `end` bytes (complete lines) stamped through one `String#replace` (two with CRLF). */
const stampByRegExp = (chunk: Buffer, end: number, prefix: Buffer, head: Buffer | null): StampedLines => {
  if (prefix !== lastPrefix) {
    lastPrefix = prefix
    lastPrefixText = prefix.toString("latin1")
    // `$` is special in a replacement string: `$$` is a literal one.
    lastReplacement = `\n${lastPrefixText.replaceAll("$", "$$$$")}`
  }
  const read = chunk.toString("latin1", 0, end)
  // A `\r` just before a `\n` is not stored (LineSplitter's rule); one elsewhere is.
  const carriageReturn = chunk.indexOf(CR)
  const text = carriageReturn === -1 || carriageReturn >= end ? read : read.replace(CRLF, "\n")
  // Every line ends in `\n`, so the last replacement leaves a prefix past the end: not written.
  const stamped = text.replace(NEWLINE, lastReplacement)
  const p = prefix.length
  const lines = (stamped.length - text.length) / p
  const h = head === null ? 0 : head.length
  const out = Buffer.allocUnsafe(h + stamped.length)
  if (head !== null) head.copy(out, 0)
  out.write(lastPrefixText, h, p, "latin1")
  out.write(stamped, h + p, stamped.length - p, "latin1")
  return { batch: out, lines, consumed: end, byLoop: false }
}

/** Every complete line of `chunk` moved into place behind its prefix, one at a time (see above). */
const stampByLoop = (chunk: Buffer, prefix: Buffer, head: Buffer | null): StampedLines => {
  let lines = 0
  let stored = 0
  let start = 0
  for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) {
    if (lines === lineEnds.length) {
      const grown = new Int32Array(lines * 2)
      grown.set(lineEnds)
      lineEnds = grown
    }
    const end = at > start && chunk[at - 1] === CR ? at - 1 : at
    lineEnds[lines++] = end
    stored += end - start + 1
    start = at + 1
  }
  if (lines === 0) return head === null ? NONE : { batch: head, lines: 0, consumed: 0, byLoop: true }
  const h = head === null ? 0 : head.length
  const p = prefix.length
  const outLength = h + stored + lines * p
  const tail = h + lines * p
  const out = Buffer.allocUnsafe(tail + start + p)
  const prefixAt = tail + start
  chunk.copy(out, tail, 0, start)
  if (p > 0) prefix.copy(out, prefixAt)
  if (head !== null) head.copy(out, 0)
  let write = h
  let read = 0
  for (let i = 0; i < lines; i++) {
    if (p > 0) {
      out.copyWithin(write, prefixAt, prefixAt + p)
      write += p
    }
    const end = lineEnds[i]!
    out.copyWithin(write, tail + read, tail + end)
    write += end - read
    out[write++] = LF
    read = chunk[end] === CR ? end + 2 : end + 1
  }
  return { batch: out.subarray(0, outLength), lines, consumed: start, byLoop: true }
}
