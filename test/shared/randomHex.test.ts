/**
 * randomHex: the random markers of runs and names of pipes (src/shared/randomHex.ts), read from
 * the kernel: the length asked for, hex digits only, and no two alike.
 */
import { describe, expect, it } from "@effect/vitest"
import { randomHex } from "../../src/shared/randomHex"

describe("randomHex", () => {
  it("gives 2 × bytes lowercase hex digits", () => {
    for (const bytes of [1, 4, 6, 12, 64]) expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))
  })

  it("never gives the same 12 bytes twice in 2,000 calls, and uses every digit", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 2_000; i++) seen.add(randomHex(12))
    expect(seen.size).toBe(2_000)
    const digits = new Set([...seen].join(""))
    expect(digits.size).toBe(16)
  })
})
