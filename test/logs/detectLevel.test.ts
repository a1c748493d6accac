import { describe, expect, it } from "@effect/vitest"
import { atLeast, detectLevel } from "../../src/logs/detectLevel"

describe("detectLevel", () => {
  it("reads a JSON level or severity field", () => {
    expect(detectLevel('{"level":"error","msg":"x"}', "out")).toBe("error")
    expect(detectLevel('{"level":"WARNING"}', "out")).toBe("warn")
    expect(detectLevel('{"severity":"critical"}', "out")).toBe("fatal")
    expect(detectLevel('{"level":"fatal"}', "out")).toBe("fatal")
    expect(detectLevel('  {"level":"debug"}', "err")).toBe("debug")
    expect(detectLevel('{"severity":"info"}', "err")).toBe("info")
  })

  it("maps pino and bunyan numbers", () => {
    expect([10, 20, 30, 40, 50, 60].map((n) => detectLevel(`{"level":${n}}`, "out"))).toEqual([
      "trace",
      "debug",
      "info",
      "warn",
      "error",
      "fatal"
    ])
    expect(detectLevel('{"level":"50"}', "out")).toBe("error")
  })

  it("reads a leading level word", () => {
    expect(detectLevel("ERROR something broke", "out")).toBe("error")
    expect(detectLevel("warn: disk almost full", "out")).toBe("warn")
    expect(detectLevel("Warning: deprecated", "out")).toBe("warn")
    expect(detectLevel("  DEBUG x", "err")).toBe("debug")
    expect(detectLevel("TRACE enter", "out")).toBe("trace")
    expect(detectLevel("FATAL out of memory", "out")).toBe("fatal")
    expect(detectLevel("INFO started", "err")).toBe("info")
  })

  it("reads a bracketed level word near the start", () => {
    expect(detectLevel("[warn] x", "out")).toBe("warn")
    expect(detectLevel("2024-01-01 12:00:00 [INFO] x", "err")).toBe("info")
    expect(detectLevel("12:00 [Error] boom", "out")).toBe("error")
  })

  it("falls back to the stream", () => {
    expect(detectLevel("Errors were found: 0", "out")).toBe("info")
    expect(detectLevel("information", "err")).toBe("error")
    expect(detectLevel("plain", "out")).toBe("info")
    expect(detectLevel("plain", "err")).toBe("error")
    expect(detectLevel('{"msg":"no level"}', "out")).toBe("info")
    expect(detectLevel("{not json", "err")).toBe("error")
  })
})

describe("atLeast", () => {
  it("keeps the level and more severe ones", () => {
    expect(atLeast("error", "warn")).toBe(true)
    expect(atLeast("warn", "warn")).toBe(true)
    expect(atLeast("info", "warn")).toBe(false)
    expect(atLeast("fatal", "trace")).toBe(true)
  })
})
