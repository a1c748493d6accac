/**
 * One append-only log file with rotation (docs/architecture.md §7). Writes are plain Node stream writes of whole
 * lines; Effect only opens and closes it.
 *
 * Rotation renames the file and opens a new one at the original path — never copy-and-truncate.
 * The old stream keeps its file descriptor, so writes it still holds land in the renamed file (same
 * inode) and new writes go to the new file: no line is lost, and since every `write` carries whole
 * lines, none is split. Once the old stream has closed, the rotated file is gzipped (with
 * `compress_logs`) and the oldest rotated files beyond `max_log_files` are deleted, one rotation
 * after the other.
 *
 * A file that cannot be opened or written (a full disk, a removed folder) never takes the daemon
 * down nor blocks the app: lines are dropped and counted (`droppedLines`), `failure` says why, and
 * the file is reopened on a later write (at most once a second) — so logging resumes by itself
 * when space comes back.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import * as zlib from "node:zlib"
import { makeDirectory } from "../daemon/makeDirectory"
import { narrowOpenFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./privateFiles"
import { listRotatedFiles, PARTIAL_SUFFIX, rotatedFileName } from "./rotatedFiles"

export interface RotationPolicy {
  /** Rotate before a write that would take the file past this many bytes; null: no size limit. */
  readonly maxSize: number | null
  /** Rotated files kept; older ones are deleted. */
  readonly maxFiles: number
  /** Gzip rotated files to `<rotated>.gz`. */
  readonly compress: boolean
  /** Rotate at each local midnight. */
  readonly daily: boolean
}

/** Bytes a file stream buffers before asking its writers to pause. */
const HIGH_WATER_MARK = 256 * 1024
/** How often a failed file is retried. */
const REOPEN_INTERVAL_MS = 1_000

/** Milliseconds from `now` to the next local midnight. */
export const msUntilNextLocalMidnight = (now: Date): number =>
  new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1).getTime() - now.getTime()

const whenClosed = (stream: fs.WriteStream): Promise<void> =>
  stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once("close", () => resolve()))

const LF = 0x0a

/** Lines in a batch of whole lines (each ends with a newline). */
const countLines = (data: Buffer): number => {
  let lines = 0
  for (let at = data.indexOf(LF); at !== -1; at = data.indexOf(LF, at + 1)) lines++
  return lines
}

const removeQuietly = (file: string): Promise<void> => fs.promises.rm(file, { force: true }).catch(() => undefined)

/**
 * Both files are opened before any byte moves: a rotated file pruned meanwhile is skipped, and no
 * asynchronous open of the partial file can still be pending when a failure removes it (which
 * left a stray `.gz.tmp` that pruning never sees).
 */
const gzip = async (file: string): Promise<void> => {
  let source: fs.promises.FileHandle
  try {
    source = await fs.promises.open(file, "r")
  } catch {
    return // pruned by a later rotation already: nothing to compress
  }
  const partial = `${file}.gz${PARTIAL_SUFFIX}`
  let target: fs.promises.FileHandle | null = null
  try {
    target = await fs.promises.open(partial, "w", PRIVATE_FILE_MODE)
    await pipeline(source.createReadStream(), zlib.createGzip(), target.createWriteStream())
    await fs.promises.rename(partial, `${file}.gz`)
    await removeQuietly(file)
  } catch {
    // Keep the uncompressed file: it is still a complete rotated file the reader understands.
    await removeQuietly(partial)
  } finally {
    await source.close().catch(() => undefined)
    if (target !== null) await target.close().catch(() => undefined)
  }
}

const NEWLINE = 0x0a

export class RotatingFile {
  private stream: fs.WriteStream | null = null
  private bytes = 0
  private lastFailure: Error | null = null
  private lastAttempt = 0
  private drainWaiters: Array<() => void> = []
  /** Finishing rotated streams, gzip and pruning, one rotation after the other. */
  private background: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private dropped = 0

  private constructor(
    readonly path: string,
    readonly policy: RotationPolicy
  ) {}

  /** Opens `file` for appending (creating its folder); see `failure` for a file that could not be opened. */
  static open(file: string, policy: RotationPolicy): Effect.Effect<RotatingFile> {
    return Effect.sync(() => RotatingFile.unsafeOpen(file, policy))
  }

  /** `open` as a plain call, for callers that must check and open in one synchronous step. */
  static unsafeOpen(file: string, policy: RotationPolicy): RotatingFile {
    const rotating = new RotatingFile(file, policy)
    rotating.reopen()
    if (policy.daily) rotating.scheduleDaily()
    return rotating
  }

  /** Bytes in the current file, counting writes still buffered. */
  get size(): number {
    return this.bytes
  }

  /** Bytes written but not yet handed to the file system. */
  get buffered(): number {
    return this.stream === null ? 0 : this.stream.writableLength
  }

  /** Why the last open or write failed; null while the file works. */
  get failure(): Error | null {
    return this.lastFailure
  }

  /** Lines lost since the file was opened because it could not be opened or written. */
  get droppedLines(): number {
    return this.dropped
  }

  /** Whether writers should pause until `onDrain` calls them back. */
  get needsDrain(): boolean {
    return this.stream !== null && this.stream.writableNeedDrain
  }

  /** Calls `listener` once the file is below its high-water mark (at once if it already is). */
  onDrain(listener: () => void): void {
    if (this.needsDrain) this.drainWaiters.push(listener)
    else listener()
  }

  /** Appends whole lines (the caller's job: rotation only ever happens between writes). */
  write(data: Buffer): void {
    if (this.closed) return
    if (this.stream === null && !this.reopen()) {
      this.dropped += countLines(data)
      return
    }
    const limit = this.policy.maxSize
    let rest = data
    // A batch bigger than the room left is cut at line ends, rotating in between, so a burst read in
    // one chunk still leaves files near `max_log_size` (and a file too big never waits for the next write).
    while (limit !== null && rest.length > 0 && this.bytes + rest.length > limit) {
      if (this.bytes === 0) {
        // An empty file takes the lines that fit, or at least one line however long.
        let cut = rest.lastIndexOf(NEWLINE, limit - 1)
        if (cut < 0) cut = rest.indexOf(NEWLINE)
        if (cut < 0 || cut === rest.length - 1) break
        this.append(rest.subarray(0, cut + 1))
        rest = rest.subarray(cut + 1)
      }
      const room = limit - this.bytes
      const cut = room > 0 ? rest.lastIndexOf(NEWLINE, room - 1) : -1
      if (cut >= 0) {
        this.append(rest.subarray(0, cut + 1))
        rest = rest.subarray(cut + 1)
      }
      const filled = this.bytes
      this.rotate()
      if (this.bytes >= filled) break // the rotation was put off (the file cannot be reopened yet)
    }
    if (rest.length > 0) this.append(rest)
  }

  private append(data: Buffer): void {
    this.bytes += data.length
    // A failed write (ENOSPC) fails every write still buffered: each one counts its own lines.
    this.stream!.write(data, this.onWritten(data))
  }

  private onWritten(data: Buffer): (error: Error | null | undefined) => void {
    return (error) => {
      if (error !== null && error !== undefined) this.dropped += countLines(data)
    }
  }

  /** Renames the current file aside and continues in a new one at the same path. */
  rotate(): void {
    if (this.closed || this.stream === null) return
    // After a failed reopen, keep appending to the renamed file until a retry is due.
    if (this.lastFailure !== null && Date.now() - this.lastAttempt < REOPEN_INTERVAL_MS) return
    let rotated: string | null = rotatedFileName(this.path, new Date())
    try {
      fs.renameSync(this.path, rotated)
    } catch {
      rotated = null // removed under us: nothing to keep, just start a new file
    }
    const old = this.stream
    this.stream = null
    if (!this.reopen()) {
      // Keep writing into the renamed file rather than lose lines; retried on the next rotation.
      this.stream = old
      return
    }
    old.end()
    const { compress, maxFiles } = this.policy
    this.background = this.background
      .then(() => whenClosed(old))
      .then(() => (compress && rotated !== null ? gzip(rotated) : undefined))
      .then(() => this.prune(maxFiles))
      .catch(() => undefined)
    this.releaseDrainWaiters()
  }

  /**
   * Empties the file at `path` in place (`pmfx flush`): the open descriptor stays, and since it appends
   * (O_APPEND), the next write lands at the new end — the start — leaving no hole. Rotated files
   * of this path are removed after the rotations in progress. Lines still buffered are newer than
   * the flush and are kept.
   */
  truncate(): Promise<void> {
    try {
      fs.truncateSync(this.path, 0)
    } catch {
      // Not there (moved away or never written): nothing to empty.
    }
    this.bytes = this.buffered
    this.background = this.background.then(() => this.prune(0)).catch(() => undefined)
    return this.background
  }

  /**
   * Opens the file again at its path (`pmfx reloadLogs`, after an outside logrotate moved it
   * away): new lines go to a new file at `path`, and lines the old stream holds end in the moved
   * file. False when the path cannot be opened now (the old stream keeps writing).
   */
  reopenAtPath(): boolean {
    if (this.closed || this.stream === null) return this.closed ? false : this.reopen()
    const old = this.stream
    this.stream = null
    // A retry after a failure is rate-limited; an asked-for reopen is not.
    this.lastFailure = null
    if (!this.reopen()) {
      this.stream = old
      return false
    }
    old.end()
    this.releaseDrainWaiters()
    return true
  }

  /** Ends the stream and waits until every write is on disk and rotated files are compressed and pruned. */
  readonly close: Effect.Effect<void> = Effect.promise(async () => {
    if (!this.closed) {
      this.closed = true
      clearTimeout(this.timer)
      const stream = this.stream
      this.stream = null
      if (stream !== null) {
        stream.end()
        await whenClosed(stream)
      }
      this.releaseDrainWaiters()
    }
    await this.background
  })

  /** Opens a fresh stream at `path`; false (and `failure` set) when it cannot. Rate-limited after a failure. */
  private reopen(): boolean {
    const now = Date.now()
    if (this.lastFailure !== null && now - this.lastAttempt < REOPEN_INTERVAL_MS) return false
    this.lastAttempt = now
    let fd: number
    try {
      makeDirectory(path.dirname(this.path), PRIVATE_DIR_MODE)
      fd = fs.openSync(this.path, "a", PRIVATE_FILE_MODE)
      narrowOpenFile(fd)
      this.bytes = fs.fstatSync(fd).size
    } catch (error) {
      this.lastFailure = error instanceof Error ? error : new Error(String(error))
      return false
    }
    // Opening synchronously pins the inode now: a rotation right after cannot redirect this stream.
    const stream = fs.createWriteStream(this.path, { fd, highWaterMark: HIGH_WATER_MARK })
    stream.on("drain", () => {
      if (stream === this.stream) this.releaseDrainWaiters()
    })
    stream.on("error", (error) => {
      if (stream !== this.stream) return // a rotated stream: its file is already set aside
      this.lastFailure = error
      this.stream = null
      this.releaseDrainWaiters()
    })
    this.stream = stream
    this.lastFailure = null
    return true
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters
    this.drainWaiters = []
    for (const waiter of waiters) waiter()
  }

  private async prune(keep: number): Promise<void> {
    const rotated = await listRotatedFiles(this.path)
    for (const file of rotated.slice(keep)) await removeQuietly(file.path)
  }

  private scheduleDaily(): void {
    this.timer = setTimeout(() => {
      // An empty file is left as it is: no point in a rotated file with nothing in it.
      if (this.bytes > 0) this.rotate()
      this.scheduleDaily()
    }, msUntilNextLocalMidnight(new Date()) + 1)
    this.timer.unref()
  }
}
