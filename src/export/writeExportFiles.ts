/**
 * Writes the files of an export into a folder so that nothing is half-written (docs/export.md):
 * every file goes to a temporary name beside its place first; only when all are written are they
 * renamed over their final names (a rename is atomic on one file system). On any failure the
 * temporary files are removed and the folder is as it was.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { FileError } from "../domain/errors"
import type { ExportFile } from "./exportTarget"

const fileError = (target: string, error: unknown): FileError => {
  const code = typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : "EIO"
  return new FileError({
    message: `cannot write the exported files into ${target} (${code}); nothing was written`,
    details: {
      field: "-o",
      path: target,
      reason: code,
      suggestion: code === "EACCES" || code === "EPERM" || code === "EROFS" ? "choose a folder you can write to with -o, or fix its permissions" : "check the folder given with -o"
    }
  })
}

export const writeExportFiles = (dir: string, files: ReadonlyArray<ExportFile>): Effect.Effect<ReadonlyArray<string>, FileError> =>
  Effect.try({
    try: () => {
      const written: Array<{ readonly temp: string; readonly final: string }> = []
      const createdDirs: Array<string> = []
      try {
        for (const file of files) {
          const final = path.join(dir, file.path)
          const parent = path.dirname(final)
          if (!fs.existsSync(parent)) {
            const first = fs.mkdirSync(parent, { recursive: true })
            if (first !== undefined) createdDirs.push(first)
          }
          const temp = path.join(parent, `.${path.basename(final)}.${process.pid}.tmp`)
          fs.writeFileSync(temp, file.content, { mode: 0o644, flag: "wx" })
          written.push({ temp, final })
        }
      } catch (error) {
        for (const { temp } of written) fs.rmSync(temp, { force: true })
        for (const created of createdDirs.reverse()) fs.rmSync(created, { recursive: true, force: true })
        throw error
      }
      for (const { temp, final } of written) fs.renameSync(temp, final)
      return written.map(({ final }) => final)
    },
    catch: (error) => fileError(dir, error)
  })
