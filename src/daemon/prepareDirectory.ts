/**
 * Makes sure a folder pmfx writes in (the home, the socket's folder) exists and can be written, or
 * says in one FILE_ERROR why not. Node's `mkdirSync(…, {recursive: true})` is not used: under
 * /proc it never returns (mkdir answers ENOENT for a parent that exists, and Node retries forever,
 * deaf to SIGTERM because the loop is synchronous); elsewhere it throws raw EROFS/EEXIST/ENOTDIR.
 * Here the nearest existing ancestor is checked first (a folder, on a real file system), then each
 * missing level is made with a plain `mkdir`, so every step either succeeds or fails once.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileError } from "../domain/errors"

/**
 * Kernel file systems (statfs magic numbers, linux/magic.h) where no folder of pmfx can live:
 * they refuse files, or (procfs) make recursive mkdir loop.
 */
const KERNEL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "/proc"],
  [0x62656572, "sysfs (/sys)"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x1cd1, "devpts"],
  [0x6e736673, "nsfs"],
  [0xcafe4a11, "bpf"],
  [0x42494e4d, "binfmt_misc"]
])

/** What each system error means for a folder pmfx needs, in words. */
const MEANINGS: Readonly<Record<string, string>> = {
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "a file of that name exists where a folder must be",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exhausted",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "the path has a symbolic link loop",
  ENOENT: "a part of the path cannot be created"
}

const codeOf = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return typeof code === "string" ? code : "EUNKNOWN"
}

export interface DirectoryRole {
  /** How the folder is named in messages: "PMFX_HOME", "the socket folder". */
  readonly label: string
  /** What the user can do instead, e.g. "set PMFX_HOME to a folder you can write". */
  readonly remedy: string
}

const fileError = (dir: string, role: DirectoryRole, reason: string, why: string, at: string = dir) =>
  new FileError({
    message: `${role.label} ${dir} cannot be used: ${why}${at === dir ? "" : ` (${at})`}`,
    details: { path: dir, reason, suggestion: role.remedy }
  })

/** FILE_ERROR for a system error met while using `dir` (at `at`, the path the call failed on). */
export const fromSystemError = (dir: string, role: DirectoryRole, error: unknown, at: string = dir): FileError => {
  const code = codeOf(error)
  return fileError(
    dir,
    role,
    code,
    `${MEANINGS[code] ?? (error instanceof Error ? error.message : String(error))} (${code})`,
    at
  )
}

/** The first existing ancestor of `dir` (or `dir` itself) and the levels below it to create. */
const existingAncestor = (
  dir: string
):
  | { readonly existing: string; readonly missing: ReadonlyArray<string> }
  | { readonly error: unknown; readonly at: string } => {
  const missing: Array<string> = []
  let current = dir
  for (;;) {
    try {
      fs.statSync(current)
      return { existing: current, missing: missing.reverse() }
    } catch (error) {
      if (codeOf(error) !== "ENOENT") return { error, at: current }
      const parent = path.dirname(current)
      if (parent === current) return { error, at: current }
      missing.push(current)
      current = parent
    }
  }
}

/** Checks `dir` and creates what is missing of it (each new level with `mode`). */
export const prepareDirectory = (dir: string, role: DirectoryRole, mode = 0o700): Effect.Effect<void, FileError> =>
  Effect.suspend(() => {
    const absolute = path.resolve(dir)
    const found = existingAncestor(absolute)
    if ("error" in found) return Effect.fail(fromSystemError(absolute, role, found.error, found.at))
    const { existing, missing } = found
    let kind: number
    try {
      if (!fs.statSync(existing).isDirectory()) {
        return Effect.fail(
          fileError(
            absolute,
            role,
            "ENOTDIR",
            existing === absolute ? "it is a file, not a folder" : `${existing} is a file, not a folder`
          )
        )
      }
      kind = Number(fs.statfsSync(existing).type)
    } catch (error) {
      return Effect.fail(fromSystemError(absolute, role, error, existing))
    }
    const kernel = KERNEL_FILE_SYSTEMS.get(kind)
    if (kernel !== undefined)
      return Effect.fail(
        fileError(absolute, role, "EKERNELFS", `it is on ${kernel}, a kernel file system that holds no files of ours`)
      )
    if (missing.length > 0) {
      try {
        fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK)
      } catch (error) {
        return Effect.fail(fromSystemError(absolute, role, error, existing))
      }
    }
    for (const level of missing) {
      try {
        fs.mkdirSync(level, { mode })
      } catch (error) {
        // Made meanwhile by another command starting at the same moment: fine if it is a folder.
        if (codeOf(error) === "EEXIST" && fs.statSync(level, { throwIfNoEntry: false })?.isDirectory() === true)
          continue
        return Effect.fail(fromSystemError(absolute, role, error, level))
      }
    }
    try {
      // (Root passes permission checks, but not a read-only file system: access says EROFS.)
      fs.accessSync(absolute, fs.constants.W_OK | fs.constants.X_OK)
    } catch (error) {
      return Effect.fail(fromSystemError(absolute, role, error, absolute))
    }
    return Effect.void
  })

/** The role of the pmfx home: the one folder every command and the daemon need. */
export const HOME_ROLE: DirectoryRole = {
  label: "PMFX_HOME",
  remedy: "set PMFX_HOME to a writable folder on an ordinary disk, or unset it to use ~/.local/share/pmfx"
}
