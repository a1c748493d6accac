/**
 * Replaces a file so that it is only ever the old content or the complete new one — never a short
 * file (docs/decisions.md, "Saving state on a full disk"). The new content goes to a temporary file
 * next to the target; every byte is written (a full disk makes `write` return short or fail), the
 * file is fsynced and its size checked, and only then is it renamed over the target and the folder
 * fsynced. On any failure the temporary file is removed and the target is left as it was.
 */
import { Data, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

/** Why a file could not be replaced; the target is unchanged. */
export class AtomicWriteError extends Data.TaggedError("AtomicWriteError")<{
  /** The file that was to be replaced. */
  readonly file: string
  /** The system's error code (`ENOSPC`, `EDQUOT`, `EROFS`, `EACCES`, `EIO` …), or `ESHORT` for a short file. */
  readonly code: string
  /** The system's message. */
  readonly reason: string
  /** Bytes the new content needed. */
  readonly bytes: number
}> {}

export interface AtomicWriteOptions {
  /** Mode of a newly created file. */
  readonly mode: number
  /**
   * fsync the file and its folder, so the new content survives a power loss. Without it the
   * content is still checked and renamed whole (enough for a pid file, cheaper for every spawn).
   */
  readonly durable: boolean
}

const codeOf = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return typeof code === "string" ? code : "EIO"
}

/** Writes all of `data` at the start of `fd`: `write` may take only part of it when the disk fills. */
const writeAll = (fd: number, data: Buffer): void => {
  let at = 0
  while (at < data.length) {
    const written = fs.writeSync(fd, data, at, data.length - at, at)
    if (written <= 0) throw Object.assign(new Error(`wrote ${at} of ${data.length} bytes`), { code: "ESHORT" })
    at += written
  }
}

/** fsync of a folder makes a rename in it durable; file systems that cannot fsync a folder say EINVAL. */
const syncFolder = (dir: string): void => {
  const fd = fs.openSync(dir, "r")
  try {
    fs.fsyncSync(fd)
  } catch (error) {
    if (codeOf(error) !== "EINVAL") throw error
  } finally {
    fs.closeSync(fd)
  }
}

/** The temporary file of `file` (hidden, per process, in the same folder so that rename is atomic). */
export const temporaryFileOf = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)

/** The synchronous core of `writeFileAtomically`, for callers outside Effect. */
export const unsafeWriteFileAtomically = (
  file: string,
  data: Buffer,
  options: AtomicWriteOptions
): AtomicWriteError | null => {
  const temp = temporaryFileOf(file)
  let fd: number | null = null
  try {
    fd = fs.openSync(temp, "w", options.mode)
    writeAll(fd, data)
    if (options.durable) fs.fsyncSync(fd)
    // The size the file system reports is what a reader will get: never rename a short file.
    const size = fs.fstatSync(fd).size
    if (size !== data.length)
      throw Object.assign(new Error(`the written file has ${size} of ${data.length} bytes`), { code: "ESHORT" })
    fs.closeSync(fd)
    fd = null
    fs.renameSync(temp, file)
  } catch (error) {
    if (fd !== null) {
      try {
        fs.closeSync(fd)
      } catch {
        // Closing is best effort: the file is removed next.
      }
    }
    try {
      fs.rmSync(temp, { force: true })
    } catch {
      // Nothing was created (a read-only folder, say): nothing to remove.
    }
    return new AtomicWriteError({
      file,
      code: codeOf(error),
      reason: error instanceof Error ? error.message : String(error),
      bytes: data.length
    })
  }
  if (options.durable) {
    try {
      syncFolder(path.dirname(file))
    } catch (error) {
      // The new file is in place; only its durability across a power loss is in doubt.
      return new AtomicWriteError({
        file,
        code: codeOf(error),
        reason: error instanceof Error ? error.message : String(error),
        bytes: data.length
      })
    }
  }
  return null
}

/** Replaces `file` with `data`: afterwards the file holds either all of `data` or its old content. */
export const writeFileAtomically = (
  file: string,
  data: Buffer,
  options: AtomicWriteOptions
): Effect.Effect<void, AtomicWriteError> =>
  Effect.suspend(() => {
    const error = unsafeWriteFileAtomically(file, data, options)
    return error === null ? Effect.void : Effect.fail(error)
  })
