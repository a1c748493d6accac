/**
 * The atomic write of state.json (issue 11, defect 3): a write that cannot complete — a full disk,
 * a target that cannot be replaced — leaves the old file byte for byte and no temporary file; a
 * write after space came back succeeds. The full-disk case mounts a tiny tmpfs (root only; it
 * skips with its reason otherwise).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { unsafeWriteFileAtomically } from "../../src/daemon/atomicWrite"
import { readStateFile, type StateFileContent, writeStateFile } from "../../src/daemon/StateFile"
import { fillDisk, mountTmpfs } from "../support/tmpfs"

const leftovers = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith(".tmp"))

/** A state with `count` apps whose environments make it several pages long. */
const bigState = (count: number, tag: string): StateFileContent => ({
  version: 1,
  saved_at: new Date().toISOString(),
  killed: false,
  engine: { next_id: 0, apps: [] },
  webhooks: Array.from({ length: count }, (_, i) => ({
    enabled: true,
    url: `http://127.0.0.1:8080/${tag}/${i}/${"p".repeat(200)}`,
    events: ["process_crash"] as const
  }))
})

describe("writing a file atomically", () => {
  it("a target that cannot be replaced keeps its content, and the temporary file is removed", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-atomic-"))
    try {
      const target = path.join(dir, "state.json")
      fs.mkdirSync(target)
      fs.writeFileSync(path.join(target, "inside"), "kept")
      const error = unsafeWriteFileAtomically(target, Buffer.from("new content"), { mode: 0o600, durable: true })
      expect(error).toMatchObject({ _tag: "AtomicWriteError", file: target, bytes: 11 })
      expect(["EISDIR", "ENOTEMPTY", "EEXIST"]).toContain(error?.code)
      expect(fs.readFileSync(path.join(target, "inside"), "utf8")).toBe("kept")
      expect(leftovers(dir)).toEqual([])
      // A folder that does not exist: nothing is created anywhere.
      const missing = unsafeWriteFileAtomically(path.join(dir, "no", "state.json"), Buffer.from("x"), {
        mode: 0o600,
        durable: true
      })
      expect(missing).toMatchObject({ code: "ENOENT" })
      expect(fs.readdirSync(dir).sort()).toEqual(["state.json"])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("a full disk leaves state.json whole and readable; the next write after space returns succeeds", async (context) => {
    const disk = mountTmpfs("64k", "pmfx-atomic-")
    if (disk._tag === "Unavailable") {
      console.warn(`SKIPPED full-disk atomic write test: ${disk.reason}`)
      context.skip()
      return
    }
    const dir = disk.tmpfs.dir
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          const file = path.join(dir, "state.json")
          const old = bigState(10, "old")
          yield* writeStateFile(file, old)
          const before = fs.readFileSync(file)
          // One page left: the new, longer state gets a short write (the 4096-byte file of the issue) and then ENOSPC.
          fillDisk(path.join(dir, "filler"), 4096)
          const failed = yield* Effect.flip(writeStateFile(file, bigState(40, "new")))
          expect(["ENOSPC", "ESHORT"]).toContain(failed.code)
          expect(fs.readFileSync(file).equals(before)).toBe(true)
          expect(leftovers(dir)).toEqual([])
          const loaded = yield* readStateFile(file)
          expect(loaded).toMatchObject({ _tag: "Loaded", state: { webhooks: old.webhooks } })
          // Space comes back: the same write goes through whole.
          fs.rmSync(path.join(dir, "filler"))
          const next = bigState(40, "new")
          yield* writeStateFile(file, next)
          expect(yield* readStateFile(file)).toMatchObject({ _tag: "Loaded", state: { webhooks: next.webhooks } })
          expect(leftovers(dir)).toEqual([])
        })
      )
    } finally {
      disk.tmpfs.unmount()
    }
  })
})
