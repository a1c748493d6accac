import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { formatPort, parsePort, portCount, portHint, PortSetting, type PortSpec } from "../../src/domain/Port"

const right = (input: unknown): PortSpec => {
  const result = parsePort(input)
  if (Either.isLeft(result)) throw new Error(`expected ${JSON.stringify(input)} to parse, got: ${result.left}`)
  return result.right
}

const left = (input: unknown): string => {
  const result = parsePort(input)
  if (Either.isRight(result)) throw new Error(`expected ${String(input)} to fail, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("parsePort", () => {
  it("reads a single port from a string or a number", () => {
    expect(right("3000")).toStrictEqual({ _tag: "Single", port: 3000 })
    expect(right(3000)).toStrictEqual({ _tag: "Single", port: 3000 })
    expect(right(" 3000 ")).toStrictEqual({ _tag: "Single", port: 3000 })
  })

  it("accepts the edges of the port numbers", () => {
    expect(right("1")).toStrictEqual({ _tag: "Single", port: 1 })
    expect(right(65535)).toStrictEqual({ _tag: "Single", port: 65535 })
  })

  it("reads a consecutive range", () => {
    expect(right("3000-3003")).toStrictEqual({ _tag: "Range", first: 3000, last: 3003 })
    expect(right("3000-3000")).toStrictEqual({ _tag: "Range", first: 3000, last: 3000 })
  })

  it("reads an automatic range", () => {
    expect(right("auto:5000-5100")).toStrictEqual({ _tag: "Auto", first: 5000, last: 5100 })
    expect(right(" auto:1-65535 ")).toStrictEqual({ _tag: "Auto", first: 1, last: 65535 })
  })

  it("rejects ports outside 1-65535", () => {
    expect(left("70000")).toContain(`"70000"`)
    expect(left("70000")).toContain("1-65535")
    expect(left("65536")).toContain("1-65535")
    expect(left("0")).toContain(`"0"`)
    expect(left(0)).toContain("1-65535")
    expect(left("3000-70000")).toContain("1-65535")
    expect(left("auto:0-10")).toContain("1-65535")
  })

  it("rejects a range whose last port is below its first", () => {
    expect(left("5-3")).toContain(`"5-3"`)
    expect(left("5-3")).toMatch(/below its first/)
    expect(left("auto:5100-5000")).toMatch(/below its first/)
  })

  it("requires a range after auto:", () => {
    const message = left("auto:5000")
    expect(message).toContain(`"auto:5000"`)
    expect(message).toContain("auto:5000-5100")
    expect(left("auto:65500")).toContain("auto:65500-65535")
  })

  it("rejects malformed settings, quoting the value", () => {
    expect(left("auto:x")).toContain(`"auto:x"`)
    expect(left("auto:x")).toContain(portHint)
    expect(left("abc")).toContain(`"abc"`)
    expect(left("")).toContain(portHint)
    expect(left("3000-")).toContain(`"3000-"`)
    expect(left("-3000")).toContain(`"-3000"`)
    expect(left("3000,3001")).toContain(`"3000,3001"`)
    expect(left("AUTO:5000-5100")).toContain(`"AUTO:5000-5100"`)
  })

  it("rejects negative and fractional numbers", () => {
    expect(left(-1)).toContain("-1")
    expect(left(3000.5)).toContain("3000.5")
  })

  it("rejects other types, describing them", () => {
    const bool = left(true)
    expect(bool).toContain("boolean true")
    expect(bool).toContain(portHint)
    expect(left(null)).toContain("null")
    expect(left({ port: 3000 })).toContain("an object")
    expect(left([3000])).toContain("an array")
  })
})

describe("formatPort", () => {
  it("writes each kind in its canonical form", () => {
    expect(formatPort({ _tag: "Single", port: 3000 })).toBe("3000")
    expect(formatPort({ _tag: "Range", first: 3000, last: 3003 })).toBe("3000-3003")
    expect(formatPort({ _tag: "Auto", first: 5000, last: 5100 })).toBe("auto:5000-5100")
  })

  it("round-trips through parsePort", () => {
    for (const text of ["1", "3000", "65535", "3000-3003", "auto:5000-5100", "auto:1-65535"]) {
      expect(formatPort(right(text))).toBe(text)
    }
  })
})

describe("portCount", () => {
  it("counts the ports a setting offers", () => {
    expect(portCount(right("3000"))).toBe(1)
    expect(portCount(right("3000-3003"))).toBe(4)
    expect(portCount(right("3000-3000"))).toBe(1)
    expect(portCount(right("auto:5000-5100"))).toBe(101)
  })
})

describe("PortSetting schema", () => {
  const decode = Schema.decodeUnknownEither(PortSetting)

  it("canonicalises the setting to a string", () => {
    expect(decode(" 3000 ")).toStrictEqual(Either.right("3000"))
    expect(decode(3000)).toStrictEqual(Either.right("3000"))
    expect(decode("3000-3003")).toStrictEqual(Either.right("3000-3003"))
    expect(decode("\tauto:5000-5100\n")).toStrictEqual(Either.right("auto:5000-5100"))
  })

  it("fails with the parser's message", () => {
    const result = decode("70000")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain(`"70000" is outside the port numbers 1-65535`)
    expect(Either.isLeft(decode("5-3"))).toBe(true)
    expect(Either.isLeft(decode("auto:5000"))).toBe(true)
    expect(Either.isLeft(decode(true))).toBe(true)
  })

  it("encodes the canonical string unchanged", () => {
    expect(Schema.encodeSync(PortSetting)("3000-3003")).toBe("3000-3003")
  })
})
