/**
 * Writes an instance's pid file when its process has spawned: the folder is made one level at a
 * time (`makeDirectory`, never Node's recursive mkdir, which spins forever under /proc), and the
 * file is replaced whole (`atomicWrite.ts`), so a reader never sees an empty or cut pid.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { AtomicWriteError, writeFileAtomically } from "../daemon/atomicWrite"
import { makeDirectory } from "../daemon/makeDirectory"

export const writePidFile = (file: string, pid: number): Effect.Effect<void, AtomicWriteError> =>
  Effect.suspend(() => {
    const data = Buffer.from(`${pid}\n`)
    try {
      makeDirectory(path.dirname(file))
    } catch (error) {
      const code = (error as { readonly code?: unknown }).code
      return Effect.fail(
        new AtomicWriteError({
          file,
          code: typeof code === "string" ? code : "EIO",
          reason: error instanceof Error ? error.message : String(error),
          bytes: data.length
        })
      )
    }
    // Not fsynced: a pid outlives no power loss, and every spawn would pay for it.
    return writeFileAtomically(file, data, { mode: 0o644, durable: false })
  })
