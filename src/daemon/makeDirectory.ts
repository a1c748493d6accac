/**
 * Creates a folder and its missing parents, one `mkdir` per level — instead of Node's
 * `mkdirSync(dir, {recursive: true})`, which never returns for a path under /proc: mkdir answers
 * ENOENT for a parent that exists there, and Node's synchronous retry loop spins forever, freezing
 * the daemon's event loop (issue 11, defect 12). Here every step either succeeds or throws once,
 * with the system's error code (ENOENT, EACCES, EROFS, ENOTDIR, ENOSPC …).
 */
import * as fs from "node:fs"
import * as path from "node:path"

const codeOf = (error: unknown): string | undefined => (error as { readonly code?: string } | null)?.code

/**
 * Makes `dir` (and what is missing above it) with `mode` (less the umask, as `mkdir` does); throws
 * the system's error when it cannot. Returns the first folder it made (the topmost), or undefined
 * when `dir` was there already — as Node's recursive mkdir does.
 */
export const makeDirectory = (dir: string, mode = 0o777): string | undefined => {
  const missing: Array<string> = []
  let current = path.resolve(dir)
  for (;;) {
    const stats = fs.statSync(current, { throwIfNoEntry: false })
    if (stats !== undefined) {
      if (!stats.isDirectory())
        throw Object.assign(new Error(`${current} is not a folder`), { code: "ENOTDIR", path: current })
      break
    }
    const parent = path.dirname(current)
    if (parent === current) break
    missing.push(current)
    current = parent
  }
  let first: string | undefined
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level, { mode })
      first ??= level
    } catch (error) {
      // Made meanwhile by someone else: fine when it is a folder.
      if (codeOf(error) === "EEXIST" && fs.statSync(level, { throwIfNoEntry: false })?.isDirectory() === true) continue
      throw error
    }
  }
  return first
}
