/**
 * Checks an instance's paths before it is spawned (issue 11, defect 12): `cwd` must be a folder;
 * the folders of `out_file`, `error_file`, `log_file` and `pid_file` are made (one level at a time,
 * `makeDirectory`) and each file is opened the way the daemon will write it. A path that cannot
 * be used fails that one start with FILE_ERROR naming the setting, the path and the system's
 * reason — before any process runs, and without touching any other app.
 *
 * A full disk (ENOSPC, EDQUOT) is not a wrong path: log lines are then dropped and counted, and
 * the pid file is written once there is room (docs/decisions.md, "Saving state on a full disk").
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDirectory } from "../daemon/makeDirectory"
import { temporaryFileOf } from "../daemon/atomicWrite"
import type { AppDefinition } from "../domain/AppDefinition"
import { FileError } from "../domain/errors"
import { instanceFiles } from "../domain/logPaths"
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../logs/privateFiles"

/** The settings whose paths are checked. */
export type PathSetting = "cwd" | "out_file" | "error_file" | "log_file" | "pid_file"

const codeOf = (error: unknown): string => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return typeof code === "string" ? code : "EIO"
}

/** What each system error means for a path, in words. */
const MEANINGS: Readonly<Record<string, string>> = {
  ENOENT: "a folder on the path does not exist and cannot be created",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EROFS: "the file system is read-only",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "the path has a symbolic link loop",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is exhausted"
}

const SUGGESTIONS: Readonly<Record<PathSetting, string>> = {
  cwd: "create the folder, or set `cwd` to an existing folder",
  out_file:
    "set `out_file` to a file in a folder the daemon's user can write, or leave it unset (logs go to PMFX_HOME/logs)",
  error_file:
    "set `error_file` to a file in a folder the daemon's user can write, or leave it unset (logs go to PMFX_HOME/logs)",
  log_file: "set `log_file` to a file in a folder the daemon's user can write, or leave it unset",
  pid_file: "set `pid_file` to a file in a folder the daemon's user can write, or leave it unset (PMFX_HOME/pids)"
}

/** FILE_ERROR for `setting` at `file`, from the system's error. */
export const pathError = (app: AppDefinition, setting: PathSetting, file: string, error: unknown): FileError => {
  const code = codeOf(error)
  const meaning =
    setting === "cwd" && code === "ENOENT"
      ? "the folder does not exist"
      : (MEANINGS[code] ?? (error instanceof Error ? error.message : String(error)))
  return new FileError({
    message: `${app.name}: ${setting} ${file} cannot be used: ${meaning} (${code})`,
    details: { field: setting, path: file, reason: code, suggestion: SUGGESTIONS[setting] }
  })
}

const isDiskFull = (error: unknown): boolean => {
  const code = codeOf(error)
  return code === "ENOSPC" || code === "EDQUOT"
}

/**
 * Opens `file` for appending (creating it private, as the log writer does) and closes it. A file
 * the check created is removed again, so a refused start leaves no empty log behind (the log
 * writer creates it on a real start; both run synchronously on the daemon's one thread).
 */
const probeAppend = (file: string): void => {
  makeDirectory(path.dirname(file), PRIVATE_DIR_MODE)
  const existed = fs.existsSync(file)
  fs.closeSync(fs.openSync(file, "a", PRIVATE_FILE_MODE))
  if (!existed) fs.rmSync(file, { force: true })
}

/** Creates and removes the temporary file a pid file is written through (so the file itself is untouched). */
const probeReplace = (file: string): void => {
  makeDirectory(path.dirname(file))
  const existing = fs.statSync(file, { throwIfNoEntry: false })
  if (existing?.isDirectory() === true) throw Object.assign(new Error(`${file} is a folder`), { code: "EISDIR" })
  const temp = temporaryFileOf(file)
  fs.closeSync(fs.openSync(temp, "w", 0o644))
  fs.rmSync(temp, { force: true })
}

/** Checks one instance's paths; the first one that cannot be used fails with FILE_ERROR. */
export const checkInstancePaths = (
  app: AppDefinition,
  instance: number,
  home: string
): Effect.Effect<void, FileError> =>
  Effect.suspend(() => {
    try {
      if (!fs.statSync(app.cwd).isDirectory())
        throw Object.assign(new Error(`${app.cwd} is a file`), { code: "ENOTDIR" })
    } catch (error) {
      return Effect.fail(pathError(app, "cwd", app.cwd, error))
    }
    const files = instanceFiles(app, instance, home)
    const checks: ReadonlyArray<readonly [PathSetting, string | null, (file: string) => void]> = [
      ["out_file", files.out_file, probeAppend],
      ["error_file", files.error_file, probeAppend],
      ["log_file", files.log_file, probeAppend],
      ["pid_file", files.pid_file, probeReplace]
    ]
    for (const [setting, file, probe] of checks) {
      if (file === null) continue
      try {
        probe(file)
      } catch (error) {
        if (!isDiskFull(error)) return Effect.fail(pathError(app, setting, file, error))
      }
    }
    return Effect.void
  })

/** Checks every instance of each app (before any of them is added). */
export const checkAppPaths = (apps: ReadonlyArray<AppDefinition>, home: string): Effect.Effect<void, FileError> =>
  Effect.forEach(
    apps,
    (app) =>
      Effect.forEach(
        Array.from({ length: app.instances }, (_, i) => i),
        (i) => checkInstancePaths(app, i, home)
      ),
    {
      discard: true
    }
  )
