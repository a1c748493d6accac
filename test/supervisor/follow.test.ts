import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, withEngine } from "../support/engine"

const node = process.execPath

describe("following logs", () => {
  it.live("followLogs streams new lines of the target with its filters", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const script = `let n = 0; setInterval(() => { n++; console.log("INFO tick " + n); if (n % 2 === 0) console.error("ERROR even " + n) }, 50)`
        const apps = yield* definitions([
          { name: "talker", script: node, args: ["-e", script] },
          { name: "other", script: node, args: ["-e", `setInterval(() => console.log("ERROR other"), 50)`] }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const errors = yield* pm.followLogs("talker", { level: "error" })
        const fiber = yield* errors.pipe(Stream.take(3), Stream.runCollect, Effect.fork)
        const collected = Chunk.toReadonlyArray(yield* Fiber.join(fiber).pipe(Effect.timeout("20 seconds")))
        expect(collected).toHaveLength(3)
        for (const entry of collected) {
          expect(entry).toMatchObject({ app: "talker", stream: "err", level: "error", instance: 0 })
          expect(entry.message).toMatch(/^ERROR even \d+$/)
          expect(Date.parse(entry.timestamp!)).not.toBeNaN()
        }
        const grepped = yield* pm.followLogs("talker", { grep: "tick [0-9]*5$" })
        const five = yield* grepped.pipe(Stream.runHead, Effect.timeout("20 seconds"))
        expect(five._tag === "Some" && /tick \d*5$/.test(five.value.message)).toBe(true)
        // The read side agrees with what was followed.
        yield* eventually(
          Effect.map(pm.readLogs("talker", { stream: "err", lines: 2 }), (lines) => lines.length === 2),
          "two error lines on disk"
        )
        const missing = yield* Effect.flip(pm.followLogs("nobody"))
        expect(missing._tag).toBe("PROCESS_NOT_FOUND")
        const badGrep = yield* Effect.flip(pm.followLogs("talker", { grep: "(" }))
        expect(badGrep._tag).toBe("BAD_REQUEST")
      })
    )
  )
})
