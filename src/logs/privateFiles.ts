/**
 * Log lines may hold secrets (tokens, customer data), so every log file pmfx writes is readable by
 * its user alone (docs/configuration.md, "Log file permissions"): created 0600 in folders created
 * 0700, and an existing file that is wider is narrowed when pmfx opens it. pmfx has no setting for
 * a group that may read logs, so 0600 it is.
 */
import * as fs from "node:fs"

export const PRIVATE_FILE_MODE = 0o600
export const PRIVATE_DIR_MODE = 0o700

/**
 * Narrows the file open at `fd` to 0600 when others may read it. Only a regular file: an
 * `out_file` of `/dev/null` or a FIFO is not pmfx's to change. A file pmfx may write but not chmod
 * (another user's) is left as it is — it still works.
 */
export const narrowOpenFile = (fd: number): void => {
  try {
    const stat = fs.fstatSync(fd)
    if (stat.isFile() && (stat.mode & 0o077) !== 0) fs.fchmodSync(fd, PRIVATE_FILE_MODE)
  } catch {
    // EPERM: not ours to change.
  }
}

/** The same for a path (a folder or file of pmfx's own that may predate this rule). */
export const narrowPath = (file: string, mode: number): void => {
  try {
    const stat = fs.statSync(file)
    if ((stat.mode & 0o777 & ~mode) !== 0) fs.chmodSync(file, mode)
  } catch {
    // Missing or not ours: nothing to narrow.
  }
}
