/**
 * Frames the bytes of a child's pipe into lines (docs/architecture.md §7). This is the hot byte path, so it is a
 * plain class fed from a Node `'data'` callback: no Effect, and lines are handed out as byte ranges
 * (`buffer`, `start`, `end`) so a caller that only copies bytes never decodes them.
 *
 * - Lines end at `\n`; a `\r` just before it is dropped.
 * - Lines are split on byte 0x0A in the raw Buffers and only then decoded, so a UTF-8 character
 *   cut across two chunks is decoded whole (0x0A never occurs inside a multi-byte character).
 * - A partial last line is kept until more bytes arrive and emitted by `flush()` at the end.
 * - A line longer than `maxLineBytes` (the app's `max_line_length`, docs/configuration.md) is cut
 *   into pieces of at most that size, at a character boundary; that bounds the bytes held per
 *   stream. Every piece after the first is emitted with `continued` set, so the files can say so.
 *   Shorter lines are never split.
 */

/** The longest line kept whole by default, and so the most bytes buffered per stream. */
export const MAX_LINE_BYTES = 1024 * 1024

const LF = 0x0a
const CR = 0x0d

/** Where a cut at `end` would not fall inside a UTF-8 character: step back over continuation bytes. */
const characterBoundary = (buffer: Buffer, start: number, end: number): number => {
  let cut = end
  // At most 3 continuation bytes follow a lead byte; give up (cut anyway) on malformed input.
  while (cut > start && end - cut < 4 && (buffer[cut]! & 0xc0) === 0x80) cut--
  return cut === start || end - cut >= 4 ? end : cut
}

export class LineSplitter {
  /** Bytes of the current, unterminated line (at most `maxLineBytes`). */
  private pending: Array<Buffer> = []
  private pendingBytes = 0
  /** Whether a piece of the current line was emitted already (the next piece continues it). */
  private continuing = false

  constructor(
    /**
     * Receives each line as `buffer[start, end)`, and `continued` when it is a later piece of a
     * line over the limit; the splitter never writes to a buffer it handed out.
     */
    private readonly emit: (buffer: Buffer, start: number, end: number, continued: boolean) => void,
    private readonly maxLineBytes: number = MAX_LINE_BYTES
  ) {}

  /** Feeds one chunk; emits every line it completes. */
  push(chunk: Buffer): void {
    let start = 0
    let newline = chunk.indexOf(LF, start)
    while (newline !== -1) {
      if (this.pendingBytes > 0) {
        this.pending.push(chunk.subarray(start, newline))
        const line = Buffer.concat(this.pending, this.pendingBytes + newline - start)
        this.pending = []
        this.pendingBytes = 0
        this.emitTerminated(line, 0, line.length)
      } else {
        this.emitTerminated(chunk, start, newline)
      }
      start = newline + 1
      newline = chunk.indexOf(LF, start)
    }
    if (start < chunk.length) this.keep(chunk, start)
  }

  /** Emits the partial last line, if any (the stream ended). */
  flush(): void {
    if (this.pendingBytes === 0) return
    const line = Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    this.emitTerminated(line, 0, line.length)
  }

  /** Hands out the bytes of the unterminated line (for the next daemon to continue), emptying it. */
  takePending(): Buffer {
    const held = Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    return held
  }

  /** Bytes currently held for an unterminated line. */
  get buffered(): number {
    return this.pendingBytes
  }

  /** Whether the next byte starts a new line: nothing held, no over-long line being continued. */
  get atLineStart(): boolean {
    return this.pendingBytes === 0 && !this.continuing
  }

  /** The longest line kept whole. */
  get lineLimit(): number {
    return this.maxLineBytes
  }

  private emitTerminated(buffer: Buffer, start: number, end: number): void {
    if (end > start && buffer[end - 1] === CR) end--
    while (end - start > this.maxLineBytes) start = this.emitPiece(buffer, start)
    // A line that ended just after a piece (its `\r` aside) has no bytes left to carry.
    if (!(this.continuing && end === start)) this.emit(buffer, start, end, this.continuing)
    this.continuing = false
  }

  /** Emits the first `maxLineBytes` (or a little less) of an over-long line from `start`; returns where the rest begins. */
  private emitPiece(buffer: Buffer, start: number): number {
    const cut = characterBoundary(buffer, start, start + this.maxLineBytes)
    this.emit(buffer, start, cut, this.continuing)
    this.continuing = true
    return cut
  }

  /** Holds the tail of a chunk that has no newline yet, cutting off full pieces beyond the bound. */
  private keep(chunk: Buffer, start: number): void {
    this.pending.push(chunk.subarray(start))
    this.pendingBytes += chunk.length - start
    if (this.pendingBytes <= this.maxLineBytes) return
    // A full-size line whose `\r\n` is cut between chunks: wait for the `\n` rather than emit a lone `\r`.
    if (this.pendingBytes === this.maxLineBytes + 1 && chunk[chunk.length - 1] === CR) return
    let held = Buffer.concat(this.pending, this.pendingBytes)
    let from = 0
    while (held.length - from > this.maxLineBytes) from = this.emitPiece(held, from)
    held = held.subarray(from)
    // Copy the remainder so the big concatenated buffer can be collected (and the emitted ranges stay intact).
    this.pending = [Buffer.from(held)]
    this.pendingBytes = held.length
  }
}

/** A splitter that hands out decoded strings (pieces of over-long lines as lines), for callers off the hot path. */
export const stringLineSplitter = (emit: (line: string) => void, maxLineBytes?: number): LineSplitter =>
  new LineSplitter((buffer, start, end) => emit(buffer.toString("utf8", start, end)), maxLineBytes)
