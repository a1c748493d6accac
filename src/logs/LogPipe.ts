/**
 * Carries one child stream (stdout or stderr) into its log file(s): the hot byte path of docs/architecture.md §7,
 * kept in plain Node callbacks. Each chunk is split into lines and the lines of the chunk, stamped
 * with the chunk's arrival time, are written as one buffer to every target: a file only ever
 * receives whole lines, and a burst costs one write per chunk rather than one per line. Text lines
 * are copied as bytes behind their timestamp and never decoded (unless `onLine` wants them): in
 * the common case (text lines, no listener) the whole chunk at once by `stampLines`, otherwise
 * line by line through `LineSplitter`.
 *
 * A line over `maxLineBytes` reaches the files as pieces (see `LineSplitter`); each later piece is
 * stored as a continuation record stamped with the first piece's time (see `formatLine`).
 *
 * Backpressure: when a target is over its high-water mark the child's stream is paused until every
 * such target drains; the child then blocks on its full pipe. Nothing is dropped.
 */
import * as fs from "node:fs"
import { noteHeavyBytes } from "../daemon/optimizingCompilers"
import type { LogStream } from "./LogEntry"
import type { LineFormatter } from "./formatLine"
import { LineSplitter } from "./LineSplitter"
import { stampLines } from "./stampLines"
import type { LogCounter } from "./LogCounts"
import type { RotatingFile } from "./RotatingFile"

/** How lines are stored: text lines as `prefix + bytes + "\n"`, JSON lines through `line`. */
export interface PipeFormat {
  /** The bytes before each text line (a continuation record's with `continued`); null for JSON logs. */
  readonly prefix: ((ms: number, continued?: boolean) => Buffer) | null
  readonly line: LineFormatter
}

const LF = 0x0a
/** Below this many bytes a JS loop copies faster than a call into `Buffer#copy`. */
const SMALL_COPY = 48

const copyBytes = (from: Buffer, start: number, end: number, to: Buffer, at: number): number => {
  if (end - start > SMALL_COPY) return at + from.copy(to, at, start, end)
  for (let i = start; i < end; i++) to[at++] = from[i]!
  return at
}

export class LogPipe {
  private readonly splitter: LineSplitter
  // The lines of the chunk being split: byte ranges for text logs, formatted strings for JSON logs.
  private rangeBuffers: Array<Buffer> = []
  private rangeStarts: Array<number> = []
  private rangeEnds: Array<number> = []
  private rangeBytes = 0
  private formatted: Array<string> = []
  /** Indexes (in the batch) of the text lines that are continuation records, with their prefixes. */
  private continuedAt: Array<number> = []
  private continuedPrefixes: Array<Buffer> = []
  /** Arrival time of the chunk being split. */
  private now = 0
  /** Arrival time of the current line's first piece: the time of all its pieces. */
  private lineMs = 0
  private paused = false
  private finished = false
  private endWaiters: Array<() => void> = []

  constructor(
    private readonly readable: NodeJS.ReadableStream,
    private readonly targets: ReadonlyArray<RotatingFile>,
    private readonly format: PipeFormat,
    private readonly stream: LogStream,
    private readonly instance: number,
    /** Sees every line after it is handed to the files; its failures never reach the byte path. */
    private readonly onLine: ((message: string, ms: number, continued: boolean) => void) | undefined,
    /** Asked once per chunk: whether `onLine` wants lines now (lines are not decoded otherwise). */
    private readonly wantsLines: () => boolean = () => true,
    /** The app's `max_line_length`: longer lines are stored as several records. */
    maxLineBytes?: number,
    /**
     * Where a handed-off stream leaves its unterminated last line for the next daemon, which
     * continues the line from there (see `handOff`); a file found here is taken at once.
     */
    private readonly carryFile: string | null = null,
    /** `GET /metrics`' lines and bytes of this stream (LogCounts): one add per chunk and per line. */
    private readonly counter: LogCounter = { lines: 0, bytes: 0 }
  ) {
    this.splitter = new LineSplitter(this.onSplitLine, maxLineBytes)
    if (carryFile !== null) {
      let carried: Buffer | null = null
      try {
        carried = fs.readFileSync(carryFile)
        fs.rmSync(carryFile, { force: true })
      } catch {
        // Nothing was carried over.
      }
      if (carried !== null && carried.length > 0) this.splitter.push(carried)
    }
    readable.on("data", this.onData)
    readable.on("end", this.finish)
    readable.on("error", this.finish)
    readable.on("close", this.finish)
    // A stream that ended before it was attached will not say so again.
    if ((readable as { readonly readableEnded?: boolean }).readableEnded === true) this.finish()
  }

  /** Whether the stream has ended (or was detached) and its last line was written. */
  get ended(): boolean {
    return this.finished
  }

  /** Calls `listener` once the stream has ended (at once if it has). */
  whenEnded(listener: () => void): void {
    if (this.finished) listener()
    else this.endWaiters.push(listener)
  }

  /**
   * Stops carrying the stream: writes the partial last line and lets whatever still comes flow
   * away unread, so a child that outlives its logs never blocks on a full pipe.
   */
  detach(): void {
    this.finish()
    this.readable.resume()
  }

  /**
   * Stops reading for a successor daemon (`pmfx daemon restart`): what the stream has already read
   * is written, the unterminated last line goes to `carryFile`, and the stream is destroyed
   * without reading further — the rest stays in the pipe for the next reader. Nothing is lost and
   * no line is cut.
   */
  handOff(): void {
    if (this.finished) return
    const readable = this.readable as NodeJS.ReadableStream & { read(): unknown; destroy?: () => void }
    readable.pause()
    // On a paused stream, each read() hands a buffered chunk to the 'data' listener.
    while (readable.read() !== null) {
      // Each chunk went through onData.
    }
    if (this.carryFile !== null) {
      const held = this.splitter.takePending()
      if (held.length > 0) {
        try {
          fs.writeFileSync(this.carryFile, held, { mode: 0o600 })
        } catch {
          this.splitter.push(held) // Not carried: written by finish() as a line of its own.
        }
      }
    }
    this.finish()
    readable.destroy?.()
  }

  private listening = false

  private readonly onData = (chunk: Buffer | string): void => {
    this.now = Date.now()
    this.listening = this.onLine !== undefined && this.wantsLines()
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    this.counter.bytes += bytes.length
    this.carry(bytes)
  }

  private carry(bytes: Buffer): void {
    // The common case of a flood: text lines, no listener that wants them decoded, and no line
    // in the chunk can be over the limit. A line held from the last chunk (a pipe read ends
    // mid-line) is completed by the splitter first; the lines after it take the fast path.
    if (this.format.prefix !== null && !this.listening && bytes.length <= this.splitter.lineLimit) {
      let from = 0
      let head: Buffer | null = null
      if (!this.splitter.atLineStart) {
        from = bytes.indexOf(LF) + 1
        if (from === 0) {
          this.splitter.push(bytes)
          return
        }
        this.splitter.push(bytes.subarray(0, from))
        head = this.takeBatch()
      }
      if (from < bytes.length) this.stampRest(from === 0 ? bytes : bytes.subarray(from), head)
      else if (head !== null) this.writeOut(head)
      return
    }
    // Work per line in JS (the splitter: a listener's decoded lines, JSON records): a flood of it
    // wants the optimizing compilers (src/daemon/optimizingCompilers.ts).
    noteHeavyBytes(bytes.length, this.now)
    this.splitter.push(bytes)
    this.writeBatch()
  }

  /**
   * The fast path (stampLines) for a chunk that starts a line, written in one buffer after `head`
   * (the stored line the chunk's first bytes completed); its unterminated end goes to the splitter.
   */
  private stampRest(bytes: Buffer, head: Buffer | null): void {
    const stamped = stampLines(bytes, this.format.prefix!(this.now), head)
    if (stamped.byLoop) noteHeavyBytes(bytes.length, this.now)
    if (stamped.batch !== null) {
      this.lineMs = this.now
      this.counter.lines += stamped.lines
      this.writeOut(stamped.batch)
    }
    // Holds it without emitting anything: it has no newline and is within the limit.
    if (stamped.consumed < bytes.length)
      this.splitter.push(stamped.consumed === 0 ? bytes : bytes.subarray(stamped.consumed))
  }

  private readonly onSplitLine = (buffer: Buffer, start: number, end: number, continued: boolean): void => {
    if (!continued) {
      this.lineMs = this.now
      this.counter.lines++
    }
    let message: string | undefined
    if (this.format.prefix !== null) {
      if (continued) {
        this.continuedAt.push(this.rangeBuffers.length)
        this.continuedPrefixes.push(this.format.prefix(this.lineMs, true))
      }
      this.rangeBuffers.push(buffer)
      this.rangeStarts.push(start)
      this.rangeEnds.push(end)
      this.rangeBytes += end - start
    } else {
      message = buffer.toString("utf8", start, end)
      this.formatted.push(this.format.line(message, this.lineMs, this.stream, this.instance, continued))
    }
    if (this.listening && this.onLine !== undefined) {
      try {
        this.onLine(message ?? buffer.toString("utf8", start, end), this.lineMs, continued)
      } catch {
        // A listener's bug must not stop the logs.
      }
    }
  }

  /** The chunk's lines as stored, emptying the batch; null when it has none. */
  private takeBatch(): Buffer | null {
    if (this.format.prefix === null) {
      if (this.formatted.length === 0) return null
      const text = this.formatted.length === 1 ? this.formatted[0]! : this.formatted.join("")
      this.formatted = []
      return Buffer.from(text, "utf8")
    }
    const count = this.rangeBuffers.length
    if (count === 0) return null
    const prefix = this.format.prefix(this.now)
    let prefixBytes = count * prefix.length
    for (let c = 0; c < this.continuedPrefixes.length; c++)
      prefixBytes += this.continuedPrefixes[c]!.length - prefix.length
    const out = Buffer.allocUnsafe(this.rangeBytes + prefixBytes + count)
    let at = 0
    let c = 0
    let nextContinued = this.continuedAt.length > 0 ? this.continuedAt[0]! : -1
    for (let i = 0; i < count; i++) {
      if (i === nextContinued) {
        const own = this.continuedPrefixes[c++]!
        at = copyBytes(own, 0, own.length, out, at)
        nextContinued = c < this.continuedAt.length ? this.continuedAt[c]! : -1
      } else {
        at = copyBytes(prefix, 0, prefix.length, out, at)
      }
      at = copyBytes(this.rangeBuffers[i]!, this.rangeStarts[i]!, this.rangeEnds[i]!, out, at)
      out[at++] = LF
    }
    this.continuedAt.length = 0
    this.continuedPrefixes.length = 0
    this.rangeBuffers.length = 0
    this.rangeStarts.length = 0
    this.rangeEnds.length = 0
    this.rangeBytes = 0
    return out
  }

  private writeBatch(): void {
    const batch = this.takeBatch()
    if (batch !== null) this.writeOut(batch)
  }

  private writeOut(batch: Buffer): void {
    for (const target of this.targets) target.write(batch)
    this.pauseWhileFull()
  }

  private pauseWhileFull(): void {
    if (this.paused || this.finished) return
    const full = this.targets.filter((target) => target.needsDrain)
    if (full.length === 0) return
    this.paused = true
    this.readable.pause()
    let waiting = full.length
    for (const target of full) {
      target.onDrain(() => {
        if (--waiting > 0) return
        this.paused = false
        if (!this.finished) this.readable.resume()
      })
    }
  }

  private readonly finish = (): void => {
    if (this.finished) return
    this.finished = true
    this.now = Date.now()
    this.splitter.flush()
    this.writeBatch()
    // The 'error' listener stays: an emitter without one would throw a late error at the daemon.
    this.readable.removeListener("data", this.onData)
    this.readable.removeListener("end", this.finish)
    this.readable.removeListener("close", this.finish)
    const waiters = this.endWaiters
    this.endWaiters = []
    for (const waiter of waiters) waiter()
  }
}
