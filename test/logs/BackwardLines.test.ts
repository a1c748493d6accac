import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { BackwardLines } from "../../src/logs/BackwardLines"
import { freshHome } from "./helpers"

/** All lines of `content`, read last first through `BackwardLines`. */
const readBackwards = (content: string | Buffer) =>
  Effect.promise(async () => {
    const file = path.join(freshHome(), "f.log")
    fs.writeFileSync(file, content)
    const handle = await fs.promises.open(file, "r")
    try {
      const lines = new BackwardLines(handle, (await handle.stat()).size)
      const seen: Array<string> = []
      for (;;) {
        const batch = await lines.previous()
        if (batch.length === 0) return seen
        seen.push(...[...batch].reverse())
      }
    } finally {
      await handle.close()
    }
  })

describe("BackwardLines", () => {
  it.effect("gives every line last first across many chunks, with empty and multi-byte lines", () =>
    Effect.gen(function* () {
      let seed = 7
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
      const lines = Array.from({ length: 5000 }, (_, i) => `${i} ${"€x".repeat(Math.floor(random() * 200))}`)
      lines[10] = ""
      lines[11] = ""
      lines.push("z".repeat(200_000))
      expect(yield* readBackwards(`${lines.join("\n")}\n`)).toEqual([...lines].reverse())
    })
  )

  it.effect("skips an unfinished last line and keeps a leading empty line", () =>
    Effect.gen(function* () {
      expect(yield* readBackwards("\na\nb\npartial")).toEqual(["b", "a", ""])
      expect(yield* readBackwards("only partial")).toEqual([])
      expect(yield* readBackwards("")).toEqual([])
    })
  )
})
