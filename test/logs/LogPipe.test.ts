import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { lineFormatter, textPrefix } from "../../src/logs/formatLine"
import { LogPipe } from "../../src/logs/LogPipe"
import { RotatingFile } from "../../src/logs/RotatingFile"
import { exited, expectNumbered, fileLines, FLOOD_SCRIPT, freshHome, isoMessage, spawnNode, testApp } from "./helpers"

describe("LogPipe", () => {
  it.live("keeps the bytes buffered for a file bounded while a child floods it", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "bp.log")
      const rotating = yield* RotatingFile.open(file, { maxSize: null, maxFiles: 1, compress: false, daily: false })
      const app = testApp()
      const child = spawnNode(FLOOD_SCRIPT, "200000")
      const pipe = new LogPipe(
        child.process.stdout,
        [rotating],
        { prefix: textPrefix(app), line: lineFormatter(app) },
        "out",
        0,
        undefined
      )
      let peak = 0
      let pauses = 0
      child.process.stdout.on("data", () => {
        peak = Math.max(peak, rotating.buffered)
        if (child.process.stdout.isPaused()) pauses++
      })
      yield* exited(child)
      expect(pipe.ended).toBe(true)
      yield* rotating.close
      expectNumbered(fileLines(file).map(isoMessage), 200_000)
      // The high-water mark (256 KiB) plus one chunk's lines with their timestamps.
      expect(peak).toBeLessThan(1024 * 1024)
    })
  )

  it.live("pauses the child's stream while a file is over its high-water mark, and resumes it", () =>
    Effect.gen(function* () {
      const file = path.join(freshHome(), "pause.log")
      const rotating = yield* RotatingFile.open(file, { maxSize: null, maxFiles: 1, compress: false, daily: false })
      const app = testApp()
      // A pipe chunk of empty lines grows 26 times with its timestamps: each batch alone passes the mark.
      const child = spawnNode(
        `const block = "\\n".repeat(65536); for (let i = 0; i < 10; i++) process.stdout.write(block)`
      )
      new LogPipe(
        child.process.stdout,
        [rotating],
        { prefix: textPrefix(app), line: lineFormatter(app) },
        "err",
        0,
        undefined
      )
      let pauses = 0
      child.process.stdout.on("data", () => {
        if (child.process.stdout.isPaused()) pauses++
      })
      yield* exited(child)
      yield* rotating.close
      expect(pauses).toBeGreaterThan(0)
      const lines = fileLines(file)
      expect(lines).toHaveLength(655_360)
      expect(lines.every((line) => isoMessage(line) === "")).toBe(true)
    })
  )
})
