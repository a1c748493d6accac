import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { distinctSizes, formatSize, humanBytes, parseSize, SizeBytes, sizeHint } from "../../src/domain/Size"

const KiB = 1024
const MiB = 1024 ** 2
const GiB = 1024 ** 3
const TiB = 1024 ** 4

const right = (input: unknown) => {
  const result = parseSize(input)
  if (Either.isLeft(result)) throw new Error(`expected ${JSON.stringify(input)} to parse, got: ${result.left}`)
  return result.right
}

const left = (input: unknown) => {
  const result = parseSize(input)
  if (Either.isRight(result)) throw new Error(`expected ${String(input)} to fail, got ${result.right}`)
  return result.left
}

describe("parseSize", () => {
  it("reads K, M, G and T as powers of 1024", () => {
    expect(right("100K")).toBe(100 * KiB)
    expect(right("512M")).toBe(512 * MiB)
    expect(right("1G")).toBe(GiB)
    expect(right("2T")).toBe(2 * TiB)
  })

  it("is case-insensitive and tolerates spaces", () => {
    expect(right("100k")).toBe(100 * KiB)
    expect(right("512m")).toBe(512 * MiB)
    expect(right("1 G")).toBe(GiB)
    expect(right("  1G  ")).toBe(GiB)
  })

  it("reads fractional amounts", () => {
    expect(right("1.5G")).toBe(1_610_612_736)
    expect(right("0.5K")).toBe(512)
    expect(right("1.5M")).toBe(1_572_864)
  })

  it("accepts B, KB/MB/GB and KiB/MiB/GiB spellings", () => {
    expect(right("10MB")).toBe(10 * MiB)
    expect(right("10mb")).toBe(10 * MiB)
    expect(right("2GiB")).toBe(2 * GiB)
    expect(right("4KiB")).toBe(4 * KiB)
    expect(right("100B")).toBe(100)
    expect(right("100b")).toBe(100)
  })

  it("accepts the Kubernetes-style suffix without B (2Gi, 512Mi)", () => {
    expect(right("2Gi")).toBe(2 * GiB)
    expect(right("512Mi")).toBe(512 * 1024 * 1024)
    expect(left("2Gx")).toContain(`"2Gx"`)
  })

  it("reads bare numbers and numeric strings as bytes", () => {
    expect(right(0)).toBe(0)
    expect(right(4096)).toBe(4096)
    expect(right("4096")).toBe(4096)
    expect(right(" 4096 ")).toBe(4096)
  })

  it("rejects unknown units and malformed strings, quoting the value", () => {
    const unknownUnit = left("12X")
    expect(unknownUnit).toContain(`"12X"`)
    expect(unknownUnit).toContain(sizeHint)
    expect(left("-1K")).toContain(`"-1K"`)
    expect(left("lots")).toContain(`"lots"`)
    expect(left("")).toContain(`""`)
    expect(left("1KK")).toContain(`"1KK"`)
  })

  it("rejects negative and non-integer numbers", () => {
    expect(left(-1)).toContain("-1")
    expect(left(-1)).toContain(sizeHint)
    expect(left(1.5)).toContain("1.5")
    expect(left(NaN)).toContain("NaN")
    expect(left(Infinity)).toContain("Infinity")
  })

  it("rejects a fractional byte count written as a string, like the same number", () => {
    expect(left("1.5")).toContain(`"1.5"`)
    expect(left("1.5B")).toContain(`"1.5B"`)
  })

  it("rejects other types, describing them", () => {
    expect(left(true)).toContain("boolean true")
    expect(left(null)).toContain("null")
    expect(left({})).toContain("an object")
    expect(left(["1G"])).toContain("an array")
  })
})

describe("formatSize", () => {
  it("picks the largest unit that divides the size exactly", () => {
    expect(formatSize(536_870_912)).toBe("512M")
    expect(formatSize(GiB)).toBe("1G")
    expect(formatSize(TiB)).toBe("1T")
    expect(formatSize(100 * KiB)).toBe("100K")
    expect(formatSize(1536 * MiB)).toBe("1536M")
    expect(formatSize(1536)).toBe("1536")
    expect(formatSize(1000)).toBe("1000")
    expect(formatSize(0)).toBe("0")
  })

  it("round-trips through parseSize", () => {
    for (const bytes of [0, 1, 1000, 1024, 1536, 100 * KiB, 512 * MiB, 1_610_612_736, 3 * TiB]) {
      expect(right(formatSize(bytes))).toBe(bytes)
    }
  })
})

describe("humanBytes", () => {
  it("shows bytes below 1 KiB as whole bytes", () => {
    expect(humanBytes(0)).toBe("0 B")
    expect(humanBytes(1023)).toBe("1023 B")
  })

  it("shows larger sizes with one decimal in the largest fitting unit", () => {
    expect(humanBytes(1024)).toBe("1.0 KB")
    expect(humanBytes(1536)).toBe("1.5 KB")
    expect(humanBytes(52_428_800)).toBe("50.0 MB")
    expect(humanBytes(GiB)).toBe("1.0 GB")
    expect(humanBytes(1.5 * TiB)).toBe("1.5 TB")
  })

  it("stays in TB beyond the last unit", () => {
    expect(humanBytes(2048 * TiB)).toBe("2048.0 TB")
  })
})

describe("SizeBytes schema", () => {
  const decode = Schema.decodeUnknownEither(SizeBytes)

  it("decodes strings and numbers to bytes", () => {
    expect(decode("1G")).toStrictEqual(Either.right(GiB))
    expect(decode("512M")).toStrictEqual(Either.right(512 * MiB))
    expect(decode(2048)).toStrictEqual(Either.right(2048))
    expect(decode("2048")).toStrictEqual(Either.right(2048))
  })

  it("fails with the parser's message", () => {
    const result = decode("12X")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain(`"12X" is not ${sizeHint}`)
    expect(Either.isLeft(decode(-1))).toBe(true)
    expect(Either.isLeft(decode(1.5))).toBe(true)
    expect(Either.isLeft(decode(null))).toBe(true)
  })

  it("encodes bytes unchanged", () => {
    expect(Schema.encodeSync(SizeBytes)(GiB)).toBe(GiB)
  })
})

describe("distinctSizes", () => {
  it("gives each size its own fitting unit: a small threshold is not rounded to 0 MB", () => {
    expect(distinctSizes(41_467_904, KiB)).toEqual(["39.5 MB", "1.0 KB"])
    expect(distinctSizes(2 * KiB, 1000)).toEqual(["2.0 KB", "1000 B"])
    expect(distinctSizes(800, 500)).toEqual(["800 B", "500 B"])
  })

  it("adds decimals until the two read differently, and falls back to bytes", () => {
    expect(distinctSizes(1.04 * GiB, GiB)).toEqual(["1.04 GB", "1.00 GB"])
    expect(distinctSizes(GiB + 2 * MiB, GiB)).toEqual(["1.002 GB", "1.000 GB"])
    expect(distinctSizes(GiB + 1, GiB)).toEqual([`${GiB + 1} B`, `${GiB} B`])
  })
})
