/**
 * The fast path of the log pipe (docs/architecture.md §7): every complete line of a chunk, stored as
 * `prefix + line + "\n"`, built into one new buffer with no per-line allocation and no per-line
 * call into Node's `Buffer` API. `LogPipe` takes it for a text log when no listener wants the lines
 * decoded (a line held from the previous chunk is completed by `LineSplitter` and passed in as
 * `head`); `LineSplitter` does the other cases. Semantics are `LineSplitter`'s: lines end at `\n`,
 * a `\r` just before it is dropped.
 *
 * A chunk is a 64 KiB pipe read holding ~900 lines of a flooding child. Its complete lines are read
 * as one latin1 string (a byte per character, so any bytes round-trip), stamped by one global
 * `replace` of `\n` by `\n + prefix` — the per-line work done by the regular-expression engine's
 * native code, whatever tier the caller runs in — and written back as latin1 (a chunk with `\r` in
 * it has its `\r\n` turned into `\n` by one more `replace` first): ~30 ms per 300,000 lines with or
 * without TurboFan. A loop moving each line into place made three calls into V8 builtins per line,
 * fast only once TurboFan had compiled it (~40 ms; ~95 ms under Sparkplug alone, ~200 ms
 * interpreted), so the daemon had to switch TurboFan on at every flood (docs/benchmarks.md, "The
 * log path, a third pass"; src/daemon/optimizingCompilers.ts).
 */

const LF = 0x0a
const CR = 0x0d

export interface StampedLines {
  /** The stored bytes of `head` and the complete lines; null when there are none. */
  readonly batch: Buffer | null
  /** Complete lines in it. */
  readonly lines: number
  /** Bytes of the chunk the lines took: what follows is an unterminated line. */
  readonly consumed: number
  /** Whether the lines were counted by a loop in JS, one call per line (only without a prefix). */
  readonly byLoop: boolean
}

const NONE: StampedLines = { batch: null, lines: 0, consumed: 0, byLoop: false }

const NEWLINE = /\n/g
const CRLF = /\r\n/g
let lastPrefix: Buffer | null = null
let lastPrefixText = ""
let lastReplacement = ""

/** The `\n`s of `chunk` up to `last`, one `indexOf` each. */
const countNewlines = (chunk: Buffer, last: number): number => {
  let lines = 0
  for (let at = chunk.indexOf(LF); at !== -1 && at <= last; at = chunk.indexOf(LF, at + 1)) lines++
  return lines
}

/**
 * `head`: bytes to store before the chunk's lines in the same buffer (the line the previous chunk
 * left unterminated, already stamped), so a chunk still makes one write.
 */
export const stampLines = (chunk: Buffer, prefix: Buffer, head: Buffer | null = null): StampedLines => {
  const last = chunk.lastIndexOf(LF)
  if (last === -1) return head === null ? NONE : { batch: head, lines: 0, consumed: 0, byLoop: false }
  const end = last + 1
  if (prefix !== lastPrefix) {
    lastPrefix = prefix
    lastPrefixText = prefix.toString("latin1")
    // `$` is special in a replacement string: `$$` is a literal one.
    lastReplacement = `\n${lastPrefixText.replaceAll("$", "$$$$")}`
  }
  const read = chunk.toString("latin1", 0, end)
  const carriageReturn = chunk.indexOf(CR)
  const text = carriageReturn === -1 || carriageReturn >= end ? read : read.replace(CRLF, "\n")
  const p = prefix.length
  // Every line ends in `\n`, so the last replacement leaves a prefix past the end: not written.
  const stamped = p === 0 ? text : text.replace(NEWLINE, lastReplacement)
  // Each line's prefix lengthens the text by `p`; without a prefix the lines are counted.
  const lines = p === 0 ? countNewlines(chunk, last) : (stamped.length - text.length) / p
  const h = head === null ? 0 : head.length
  const out = Buffer.allocUnsafe(h + stamped.length)
  if (head !== null) head.copy(out, 0)
  out.write(lastPrefixText, h, p, "latin1")
  out.write(stamped, h + p, stamped.length - p, "latin1")
  return { batch: out, lines, consumed: end, byLoop: p === 0 }
}
