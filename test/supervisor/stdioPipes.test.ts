import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Paths } from "../../src/shared/Paths"
import { StdioPipes } from "../../src/supervisor/StdioPipes"

const isFifo = (file: string) => fs.lstatSync(file).isFIFO()

/** A fresh home for the test's scope, removed when it closes. */
const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-pipes-"))),
  (home) => Effect.sync(() => fs.rmSync(home, { recursive: true, force: true }))
)

describe("StdioPipes", () => {
  it.scopedLive("hands 40 spawns asking at once 40 distinct pairs of FIFOs, beyond the spares made ahead", () =>
    Effect.gen(function* () {
      const home = yield* tempHome
      const pairs = yield* Effect.gen(function* () {
        const pipes = yield* StdioPipes
        return yield* Effect.forEach(Array.from({ length: 40 }), () => pipes.take, { concurrency: "unbounded" })
      }).pipe(Effect.provide(StdioPipes.Default.pipe(Layer.provide(Paths.at(home)))))
      const files = pairs.flatMap((pair) => [pair.out, pair.err])
      expect(new Set(files).size).toBe(80)
      for (const file of files) expect(isFifo(file)).toBe(true)
      // The layer is closed: its unused spares go (a refill still running removes its own when it
      // ends), the handed-out pairs stay for their apps.
      const dir = path.dirname(pairs[0]!.out)
      const deadline = Date.now() + 10_000
      while (fs.readdirSync(dir).some((name) => name.startsWith("spare-")) && Date.now() < deadline)
        yield* Effect.sleep("20 millis")
      const left = fs.readdirSync(dir)
      expect(left.filter((name) => name.startsWith("spare-"))).toEqual([])
      expect(left).toHaveLength(80)
    })
  )
})
