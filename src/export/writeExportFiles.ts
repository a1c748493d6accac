/**
 * Writes the files of an export into a folder so that nothing is half-written (docs/export.md):
 * every file goes to a temporary name beside its place first; only when all are written are they
 * renamed over their final names (a rename is atomic on one file system). On any failure the
 * temporary files are removed and the folder is as it was.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDirectory } from "../daemon/makeDirectory"
import { FileError } from "../domain/errors"
import type { ExportFile } from "./exportTarget"

const fileError = (target: string, error: unknown): FileError => {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : "EIO"
  return new FileError({
    message: `cannot write the exported files into ${target} (${code}); nothing was written`,
    details: {
      field: "-o",
      path: target,
      reason: code,
      suggestion:
        code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "choose a folder you can write to with -o, or fix its permissions"
          : "check the folder given with -o"
    }
  })
}

export const writeExportFiles = (
  dir: string,
  files: ReadonlyArray<ExportFile>
): Effect.Effect<ReadonlyArray<string>, FileError> =>
  Effect.try({
    try: () => {
      const targets = files.map((file) => ({ file, final: path.join(dir, file.path) }))
      // A folder where a file must go would fail its rename after others were renamed: refuse first.
      for (const { final } of targets) {
        if (fs.existsSync(final) && !fs.statSync(final).isFile())
          throw Object.assign(new Error(`${final} is not a file`), { code: "EISDIR" })
      }
      const temps: Array<string> = []
      const createdDirs: Array<string> = []
      try {
        for (const { file, final } of targets) {
          const parent = path.dirname(final)
          if (!fs.existsSync(parent)) {
            // Not Node's recursive mkdir: it never returns for a path under /proc (daemon/makeDirectory.ts).
            const first = makeDirectory(parent)
            if (first !== undefined) createdDirs.push(first)
          }
          const temp = path.join(parent, `.${path.basename(final)}.${process.pid}.tmp`)
          temps.push(temp)
          fs.writeFileSync(temp, file.content, { mode: 0o644, flag: "wx" })
        }
        targets.forEach(({ final }, i) => fs.renameSync(temps[i]!, final))
      } catch (error) {
        for (const temp of temps) fs.rmSync(temp, { force: true })
        for (const created of createdDirs.reverse()) fs.rmSync(created, { recursive: true, force: true })
        throw error
      }
      return targets.map(({ final }) => final)
    },
    catch: (error) => fileError(dir, error)
  })
