import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"
import { RotatingFile, type RotationPolicy } from "../../src/logs/RotatingFile"
import { eventually, fileLines, freshHome } from "./helpers"

const policy: RotationPolicy = { maxSize: null, maxFiles: 10, compress: false, daily: false }

// Writes with more behind them that follow each other within RotatingFile.COALESCE_MS are held
// and sent as one.
describe("RotatingFile, writes of a burst", () => {
  it.live("reach the file by themselves, in order, with no flush or close", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "burst.log")
      const rotating = yield* RotatingFile.open(file, policy)
      for (let i = 0; i < 50; i++) rotating.write(Buffer.from(`line ${i}\n`), true)
      yield* eventually(() => fs.existsSync(file) && fileLines(file).length === 50)
      expect(fileLines(file)).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}`))
      yield* rotating.close
    })
  )

  it.live("held when a rotation comes go to the file set aside; later ones to the new file", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "held.log")
      const rotating = yield* RotatingFile.open(file, policy)
      for (let i = 0; i < 5; i++) rotating.write(Buffer.from(`old ${i}\n`), true)
      rotating.rotate()
      rotating.write(Buffer.from("new 0\n"), true)
      rotating.write(Buffer.from("new 1\n"), true)
      yield* rotating.close
      const [rotated] = yield* Effect.promise(() => listRotatedFiles(file))
      expect(fileLines(rotated!.path)).toEqual(["old 0", "old 1", "old 2", "old 3", "old 4"])
      expect(fileLines(file)).toEqual(["new 0", "new 1"])
    })
  )

  it.live("count as buffered, and past the high-water mark go out at once and ask writers to wait", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "mark.log")
      const rotating = yield* RotatingFile.open(file, policy)
      const line = `${"y".repeat(1023)}\n`
      rotating.write(Buffer.from(line), true)
      rotating.write(Buffer.from(line), true)
      expect(rotating.buffered).toBeGreaterThanOrEqual(1024)
      // 300 KiB more, in 1 KiB writes: past the 256 KiB mark the held writes are released.
      for (let i = 0; i < 300; i++) rotating.write(Buffer.from(line), true)
      expect(rotating.needsDrain).toBe(true)
      let drained = false
      rotating.onDrain(() => {
        drained = true
      })
      yield* eventually(() => drained)
      yield* rotating.close
      expect(fileLines(file).length).toBe(302)
    })
  )
})
