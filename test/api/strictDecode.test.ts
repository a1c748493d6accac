/** src/api/strictDecode.ts: the plain decode is taken only when the strict one would give the same value. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { decodeStrictly, keepsEveryKey } from "../../src/api/strictDecode"

const Inner = Schema.Struct({ a: Schema.Number, b: Schema.optionalWith(Schema.String, { default: () => "b" }) })
const Body = Schema.Struct({
  items: Schema.Array(Inner),
  env: Schema.Record({ key: Schema.String, value: Schema.String }),
  choice: Schema.Union(
    Schema.Struct({ kind: Schema.Literal("x") }),
    Schema.Struct({ kind: Schema.Literal("y"), n: Schema.Number })
  )
})

const strict = (input: unknown) => Schema.decodeUnknownEither(Body, { onExcessProperty: "error" })(input)
const fast = (input: unknown) => Effect.runSync(Effect.either(decodeStrictly(Body)(input)))

describe("decodeStrictly", () => {
  it("gives the strict decode's value for a body without unknown keys (defaults filled, records kept whole)", () => {
    const body = { items: [{ a: 1 }, { a: 2, b: "z" }], env: { ANY: "1", OTHER: "2" }, choice: { kind: "y", n: 3 } }
    expect(fast(body)).toEqual(strict(body))
    expect(Either.getOrThrow(fast(body))).toEqual({
      items: [
        { a: 1, b: "b" },
        { a: 2, b: "z" }
      ],
      env: { ANY: "1", OTHER: "2" },
      choice: { kind: "y", n: 3 }
    })
  })

  it("refuses an unknown key at any depth with the strict decode's error", () => {
    for (const body of [
      { items: [{ a: 1 }], env: {}, choice: { kind: "x" }, extra: true },
      { items: [{ a: 1 }, { a: 2, c: 3 }], env: {}, choice: { kind: "x" } },
      { items: [], env: {}, choice: { kind: "x", n: 1 } }
    ]) {
      const got = fast(body)
      expect(Either.isLeft(got)).toBe(true)
      expect(String(Either.flip(got).pipe(Either.getOrThrow))).toBe(
        String(Either.flip(strict(body)).pipe(Either.getOrThrow))
      )
    }
  })

  it("keeps the strict decode's error for a body of the wrong shape", () => {
    const body = { items: [{ a: "one" }], env: {}, choice: { kind: "x" } }
    expect(String(Either.flip(fast(body)).pipe(Either.getOrThrow))).toBe(
      String(Either.flip(strict(body)).pipe(Either.getOrThrow))
    )
  })
})

describe("keepsEveryKey", () => {
  it("follows objects and arrays, and sees a key that went missing", () => {
    expect(keepsEveryKey({ a: [{ b: 1 }] }, { a: [{ b: 1, c: 2 }] })).toBe(true)
    expect(keepsEveryKey({ a: [{ b: 1, d: 1 }] }, { a: [{ b: 1 }] })).toBe(false)
    expect(keepsEveryKey({ a: [1, 2] }, { a: [1] })).toBe(false)
    expect(keepsEveryKey({ a: {} }, { a: null })).toBe(false)
    expect(keepsEveryKey("text", 1)).toBe(true)
  })
})
