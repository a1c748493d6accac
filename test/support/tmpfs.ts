/**
 * A small tmpfs for full-disk tests: `mount -t tmpfs -o size=…` on a fresh folder. Mounting needs
 * root (CAP_SYS_ADMIN); without it `mountTmpfs` says why, and the test skips with that reason
 * printed, never silently.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export interface Tmpfs {
  readonly dir: string
  /** Unmounts (lazily if busy) and removes the folder. */
  readonly unmount: () => void
}

export type TmpfsResult =
  | { readonly _tag: "Mounted"; readonly tmpfs: Tmpfs }
  | { readonly _tag: "Unavailable"; readonly reason: string }

export const mountTmpfs = (size: string, prefix = "pmfx-tmpfs-"): TmpfsResult => {
  if (process.getuid?.() !== 0)
    return { _tag: "Unavailable", reason: "needs root to mount a tmpfs (run as root, as .ci/run does)" }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], {
    encoding: "utf8"
  })
  if (mounted.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true })
    return {
      _tag: "Unavailable",
      reason: `mount -t tmpfs failed: ${(mounted.stderr || mounted.error?.message || "").trim()}`
    }
  }
  return {
    _tag: "Mounted",
    tmpfs: {
      dir,
      unmount: () => {
        if (spawnSync("umount", [dir]).status !== 0) spawnSync("umount", ["-l", dir])
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}

/** Fills the file system of `dir` with `file` until a write fails, leaving at most `leave` bytes (rounded to pages) free. */
export const fillDisk = (file: string, leave = 0): void => {
  const fd = fs.openSync(file, "w")
  const chunk = Buffer.alloc(4096, 0x61)
  try {
    for (;;) {
      const stats = fs.statfsSync(path.dirname(file))
      if (Number(stats.bavail) * Number(stats.bsize) <= leave) return
      fs.writeSync(fd, chunk)
    }
  } catch {
    // Full.
  } finally {
    fs.closeSync(fd)
  }
}
