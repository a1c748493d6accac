import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"
import { msUntilNextLocalMidnight, RotatingFile, type RotationPolicy } from "../../src/logs/RotatingFile"
import { fileLines, freshHome } from "./helpers"

const policy = (overrides: Partial<RotationPolicy> = {}): RotationPolicy => ({
  maxSize: null,
  maxFiles: 10,
  compress: false,
  daily: false,
  ...overrides
})

describe("RotatingFile", () => {
  it.effect("creates its folder and appends to what is there", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "deep", "er", "a.log")
      const first = yield* RotatingFile.open(file, policy())
      first.write(Buffer.from("one\n"))
      yield* first.close
      const second = yield* RotatingFile.open(file, policy())
      expect(second.size).toBe(4)
      second.write(Buffer.from("two\n"))
      yield* second.close
      expect(fileLines(file)).toEqual(["one", "two"])
    })
  )

  it.effect("rotates by renaming: writes still buffered land in the rotated file, new ones in a new file", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "r.log")
      const rotating = yield* RotatingFile.open(file, policy())
      const big = Array.from({ length: 60000 }, (_, i) => `old ${i}\n`).join("")
      rotating.write(Buffer.from(big))
      expect(rotating.needsDrain).toBe(true)
      rotating.rotate()
      // The new file has nothing buffered: writers may go on at once.
      expect(rotating.needsDrain).toBe(false)
      rotating.write(Buffer.from("new 0\n"))
      yield* rotating.close
      const [rotated] = yield* Effect.promise(() => listRotatedFiles(file))
      expect(rotated!.path).toMatch(/r\.log\.\d{8}-\d{6}-\d{3}$/)
      expect(fs.readFileSync(rotated!.path, "utf8")).toBe(big)
      expect(fileLines(file)).toEqual(["new 0"])
    })
  )

  it.effect(
    "cuts one write bigger than max size at line ends: every file stays within the limit, no line split or lost",
    () =>
      Effect.gen(function* () {
        const file = path.join(freshHome(), "burst.log")
        const rotating = yield* RotatingFile.open(file, policy({ maxSize: 100, maxFiles: 100 }))
        // A burst read in one chunk: 60 lines of 10 bytes, and one line longer than the limit.
        const lines = [
          ...Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(4, "0")}`),
          "x".repeat(150),
          ...Array.from({ length: 30 }, (_, i) => `more ${String(i).padStart(4, "0")}`)
        ]
        rotating.write(Buffer.from(lines.map((line) => `${line}\n`).join("")))
        yield* rotating.close
        const rotated = (yield* Effect.promise(() => listRotatedFiles(file))).map((r) => r.path).reverse()
        const files = [...rotated, file]
        const sizes = files.map((f) => fs.statSync(f).size)
        // Only the file holding the long line may pass the limit, and it holds that line alone.
        for (const [i, f] of files.entries()) {
          if (sizes[i]! > 100) expect(fileLines(f)).toEqual(["x".repeat(150)])
        }
        expect(files.flatMap((f) => fileLines(f))).toEqual(lines)
      })
  )

  it.effect("rotates before a write that would pass max size, and names same-millisecond rotations apart", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "s.log")
      const rotating = yield* RotatingFile.open(file, policy({ maxSize: 10, maxFiles: 100 }))
      for (let i = 0; i < 6; i++) rotating.write(Buffer.from(`line ${i}\n`)) // 7 bytes each: one per file
      yield* rotating.close
      const rotated = yield* Effect.promise(() => listRotatedFiles(file))
      expect(rotated).toHaveLength(5)
      expect(new Set(rotated.map((r) => r.path)).size).toBe(5)
      expect([...rotated].reverse().map((r) => fs.readFileSync(r.path, "utf8"))).toEqual(
        [0, 1, 2, 3, 4].map((i) => `line ${i}\n`)
      )
      expect(fileLines(file)).toEqual(["line 5"])
    })
  )

  it.effect("gzips rotated files and keeps max_log_files of them", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "g.log")
      const rotating = yield* RotatingFile.open(file, policy({ maxSize: 10, maxFiles: 2, compress: true }))
      for (let i = 0; i < 6; i++) rotating.write(Buffer.from(`line ${i}\n`))
      yield* rotating.close
      const rotated = yield* Effect.promise(() => listRotatedFiles(file))
      expect(rotated.map((r) => r.compressed)).toEqual([true, true])
      expect(rotated.map((r) => zlib.gunzipSync(fs.readFileSync(r.path)).toString())).toEqual(["line 4\n", "line 3\n"])
      expect(fs.readdirSync(path.dirname(file))).toHaveLength(3)
    })
  )

  it.effect("drops lines instead of failing when the file cannot be opened", () =>
    Effect.gen(function* () {
      const home = freshHome()
      fs.writeFileSync(path.join(home, "not-a-dir"), "")
      const rotating = yield* RotatingFile.open(path.join(home, "not-a-dir", "x.log"), policy())
      expect(rotating.failure).not.toBeNull()
      rotating.write(Buffer.from("lost\n"))
      expect(rotating.needsDrain).toBe(false)
      yield* rotating.close
    })
  )

  it("knows how long it is to the next local midnight", () => {
    expect(msUntilNextLocalMidnight(new Date(2026, 10, 21, 23, 59, 0))).toBe(60_000)
    expect(msUntilNextLocalMidnight(new Date(2026, 10, 21, 0, 0, 0))).toBe(
      new Date(2026, 10, 22).getTime() - new Date(2026, 10, 21).getTime()
    )
  })
})
