/**
 * The lines of a plain file, last first, read backwards in 64 KiB chunks: `logs --lines 100` of a
 * 1 GB file touches only its tail. Lines are split on byte 0x0A before decoding, so UTF-8 characters
 * are never cut. Bytes after the last newline are skipped: the writer always ends its writes with a
 * newline, so such bytes are a write still in progress.
 */
import type { FileHandle } from "node:fs/promises"
import { noteHeavyBytes } from "../daemon/optimizingCompilers"

const CHUNK_BYTES = 64 * 1024
/** The default bound on a line held whole; longer "lines" are handed out in pieces. */
const MAX_CARRY_BYTES = 1024 * 1024
const LF = 0x0a

const readFully = async (handle: FileHandle, buffer: Buffer, position: number): Promise<number> => {
  let filled = 0
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  noteHeavyBytes(filled, Date.now())
  return filled
}

export class BackwardLines {
  /** Bytes before this offset are still unread. */
  private position: number
  /** The start of the earliest line seen so far, whose beginning may lie before `position`; null once handed out. */
  private carry: Buffer | null = Buffer.alloc(0)
  /** Whether the last newline of the file has been found (everything after it is skipped). */
  private pastTail = false

  constructor(
    private readonly handle: FileHandle,
    size: number,
    /** The longest line held whole (the writer's longest stored line); bounds memory on a foreign file. */
    private readonly maxLineBytes: number = MAX_CARRY_BYTES
  ) {
    this.position = size
  }

  /** The next batch of lines going backwards, in file order (the last element is the latest line); empty at the start of the file. */
  async previous(): Promise<ReadonlyArray<string>> {
    for (;;) {
      if (this.position === 0) {
        const head = this.carry
        this.carry = null
        // A file without any newline holds only a partial line: nothing to give.
        return head !== null && this.pastTail ? [head.toString("utf8")] : []
      }
      const lines = await this.readChunk()
      if (lines.length > 0) return lines
    }
  }

  private async readChunk(): Promise<ReadonlyArray<string>> {
    const start = Math.max(0, this.position - CHUNK_BYTES)
    const chunk = Buffer.allocUnsafe(this.position - start)
    const read = await readFully(this.handle, chunk, start)
    this.position = start
    const carry = this.carry ?? Buffer.alloc(0)
    const buffer = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([chunk.subarray(0, read), carry])
    let end = buffer.length
    if (!this.pastTail) {
      const last = buffer.lastIndexOf(LF)
      if (last === -1) {
        // Still inside the unfinished tail: it is skipped, so there is no need to hold all of it.
        this.carry = buffer.length > this.maxLineBytes ? Buffer.alloc(0) : buffer
        return []
      }
      end = last
      this.pastTail = true
    }
    const first = buffer.indexOf(LF)
    if (first === -1 || first >= end) {
      this.carry = buffer.subarray(0, end)
      if (this.carry.length <= this.maxLineBytes) return []
      const piece = this.carry.toString("utf8")
      this.carry = Buffer.alloc(0)
      return [piece]
    }
    this.carry = Buffer.from(buffer.subarray(0, first))
    const lines: Array<string> = []
    let from = first + 1
    while (from <= end) {
      const newline = buffer.indexOf(LF, from)
      const stop = newline === -1 || newline > end ? end : newline
      lines.push(buffer.toString("utf8", from, stop))
      from = stop + 1
    }
    return lines
  }
}
