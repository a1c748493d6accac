import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as path from "node:path"

describe("docs/library.md", () => {
  it("its runnable example supervises the example apps in-process and stops them", () => {
    const result = spawnSync(process.execPath, [path.resolve(__dirname, "../examples/library/supervise.mjs")], {
      encoding: "utf8",
      timeout: 60_000
    })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/GET http:\/\/127\.0\.0\.1:4000\/ → .*"port":4000/)
    expect(result.stdout).toMatch(/0 {2}api {6}online {4}pid \d+ {2}port 4000 {2}health healthy/)
    expect(result.stdout).toMatch(/1 {2}api {6}online {4}pid \d+ {2}port 4001 {2}health healthy/)
    expect(result.stdout).toContain("all processes stopped")
  })
})
