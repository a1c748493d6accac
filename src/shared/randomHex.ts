/**
 * Random hex digits from the kernel, for the markers of runs and the names of pipes.
 *
 * Read from `/dev/urandom` rather than with `crypto.randomBytes`: `node:crypto` is 15 built-in
 * modules that cost every daemon ~0.66 MB resident, for 12 bytes per spawn (docs/benchmarks.md,
 * "The daemon's memory, sixth pass"). The bundles load `node:crypto` on first use (scripts/build.mjs,
 * LAZY_BUILTINS): an API key compared, a long name hashed — or here, where `/dev/urandom` cannot be
 * opened (a bare chroot).
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"

const fromKernel = (buffer: Buffer): boolean => {
  let fd: number
  try {
    fd = fs.openSync("/dev/urandom", "r")
  } catch {
    return false
  }
  try {
    let filled = 0
    while (filled < buffer.length) {
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null)
      if (read === 0) return false
      filled += read
    }
    return true
  } finally {
    fs.closeSync(fd)
  }
}

/** `bytes` random bytes as `2 × bytes` lowercase hex digits. */
export const randomHex = (bytes: number): string => {
  const buffer = Buffer.alloc(bytes)
  return (fromKernel(buffer) ? buffer : randomBytes(bytes)).toString("hex")
}
