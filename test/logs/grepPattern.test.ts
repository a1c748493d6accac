/** `grep` is matched by RE2 (re2js): linear time whatever the pattern, RE2 syntax, clear refusals (docs/api.md). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { RE2JS } from "re2js"
import { compileGrep, MAX_GREP_LENGTH } from "../../src/logs/grepPattern"
import { compileLogQuery } from "../../src/logs/LogQuery"

const matcher = (text: string) => {
  const compiled = compileGrep(text)
  if (Either.isLeft(compiled)) throw new Error(`refused ${text}: ${compiled.left.reason}`)
  return compiled.right
}

const refusal = (grep: string) => {
  const result = compileLogQuery({ grep }, { instances: 1 }, Date.now())
  if (Either.isRight(result)) throw new Error(`accepted ${grep}`)
  return { tag: result.left._tag, details: result.left.details }
}

describe("compileGrep", () => {
  it("answers at once for the patterns that froze the daemon with a backtracking RegExp", () => {
    // Each of these took 13 s or more with RegExp on these lines; RE2 needs no time bound at all.
    expect(matcher("^(a|a)*$").test("a".repeat(32))).toBe(true)
    expect(matcher("^(a|a)*$").test(`${"a".repeat(32)}!`)).toBe(false)
    expect(matcher("^(a|a?)+$").test(`${"a".repeat(27)}!`)).toBe(false)
    expect(matcher("(a+)+$").test(`${"a".repeat(100_000)}!`)).toBe(false)
    expect(matcher("(a+)+!").test(`${"a".repeat(100_000)}!`)).toBe(true)
    expect(matcher("^(a+)+$").test(`${"a".repeat(100_000)}!`)).toBe(false)
    expect(matcher("^(\\w*)*$").test(`${"w".repeat(100_000)} `)).toBe(false)
    expect(matcher("(.*a){20}$").test(`${"a".repeat(50_000)}b`)).toBe(false)
  })

  it("searches anywhere in the message, with the flags i, m and s", () => {
    expect(matcher("timeout").test("GET /x: timeout after 5s")).toBe(true)
    expect(matcher("^timeout").test("GET /x: timeout")).toBe(false)
    expect(matcher("/TIMEOUT/i").test("a timeout")).toBe(true)
    expect(matcher("TIMEOUT").test("a timeout")).toBe(false)
    expect(matcher("(?i)TIMEOUT").test("a timeout")).toBe(true)
    expect(matcher("/^b$/m").test("a\nb")).toBe(true)
    expect(matcher("/a.b/s").test("a\nb")).toBe(true)
    expect(matcher("a.b").test("a\nb")).toBe(false)
    // g, y, u and d change nothing for a yes/no test, and `test` keeps no state between lines.
    const global = matcher("/x/gyud")
    expect([global.test("x"), global.test("x"), global.test("x")]).toEqual([true, true, true])
    // The syntax log searches use: classes, alternation, counted repeats, named groups, \d \w \s \b.
    expect(matcher("^\\[\\d+\\] (GET|POST) /api").test("[12] POST /api/x")).toBe(true)
    expect(matcher("id=\\d{1,6}\\b").test("id=123456 ok")).toBe(true)
    expect(matcher("(?<verb>GET|PUT)\\s+/").test("PUT  /a")).toBe(true)
    expect(matcher("é+").test("café")).toBe(true)
    expect(matcher("\\x{e9}").test("café")).toBe(true)
  })

  it("matches a plain word like the engine would, with or without i", () => {
    for (const [grep, message, expected] of [
      ["needle-42", "a needle-42 here", true],
      ["needle-42", "a NEEDLE-42 here", false],
      ["/needle-42/i", "a NEEDLE-42 here", true],
      ["/ÉTÉ/i", "un été", true],
      // Unicode case folding, as RE2 does it: K (Kelvin sign) folds with k.
      ["/k/i", "\u212A", true],
      ["/p/i", "q", false],
      ["a /b/ c", "x a /b/ c y", true],
      ["//", "anything", true]
    ] as const) {
      expect(matcher(grep).test(message), `${grep} on ${message}`).toBe(expected)
      // The same answer as the engine itself gives.
      const literal = /^\/(.*)\/(i?)$/s.exec(grep)
      const engine =
        literal === null
          ? RE2JS.compile(grep)
          : RE2JS.compile(literal[1]!, literal[2] === "i" ? RE2JS.CASE_INSENSITIVE : 0)
      expect(engine.test(message), `RE2 for ${grep} on ${message}`).toBe(expected)
    }
  })
})

describe("a log query's grep", () => {
  it("refuses backreferences with BAD_REQUEST on grep, a reason and what to write instead", () => {
    for (const grep of ["(a)\\1", "(?<w>\\w+) \\k<w>"]) {
      expect(refusal(grep)).toEqual({
        tag: "BAD_REQUEST",
        details: {
          field: "grep",
          reason: expect.stringMatching(/^backreferences like \\[1k] are not supported \(grep uses RE2 syntax/),
          suggestion: expect.stringContaining("match the repeated text itself")
        }
      })
    }
  })

  it("refuses lookahead and lookbehind the same way", () => {
    for (const grep of ["foo(?=bar)", "foo(?!bar)", "(?<=foo )bar", "(?<!foo )bar"]) {
      expect(refusal(grep)).toEqual({
        tag: "BAD_REQUEST",
        details: {
          field: "grep",
          reason: expect.stringMatching(/^lookahead and lookbehind like \(\?[=!<].*are not supported/),
          suggestion: expect.stringContaining("match the surrounding text too")
        }
      })
    }
  })

  it("refuses invalid patterns, unknown flags and over-long patterns, naming the problem", () => {
    expect(refusal("(unclosed").details).toEqual({
      field: "grep",
      reason: "missing closing ) at `(unclosed` (grep uses RE2 syntax (like grep -E and Go), see docs/api.md)",
      suggestion: expect.stringContaining("give a valid RE2 regular expression")
    })
    expect(refusal("[z-a]").details).toMatchObject({
      field: "grep",
      reason: expect.stringContaining("invalid character class range")
    })
    expect(refusal("a{1001}").details).toMatchObject({
      field: "grep",
      reason: expect.stringContaining("invalid repeat count")
    })
    expect(refusal("\\u00e9").details).toMatchObject({
      field: "grep",
      suggestion: expect.stringContaining("\\x{00e9}")
    })
    expect(refusal("/x/q").details).toEqual({
      field: "grep",
      reason: 'unknown flag "q" in /x/q',
      suggestion: expect.stringContaining("i (ignore case)")
    })
    expect(refusal("a".repeat(MAX_GREP_LENGTH + 1)).details).toMatchObject({
      field: "grep",
      reason: `the pattern is longer than ${MAX_GREP_LENGTH} characters`
    })
    expect(Either.isRight(compileLogQuery({ grep: "a".repeat(MAX_GREP_LENGTH) }, { instances: 1 }, Date.now()))).toBe(
      true
    )
  })

  it("accepts what the old nested-repetition check refused, and an empty grep means no filter", () => {
    for (const grep of ["(a+)+$", "(\\d+\\.)+", "(x+x+)+y", "error.*timeout"]) {
      expect(Either.isRight(compileLogQuery({ grep }, { instances: 1 }, Date.now())), grep).toBe(true)
    }
    const none = compileLogQuery({ grep: "" }, { instances: 1 }, Date.now())
    expect(Either.isRight(none) && none.right.grep).toBe(null)
  })
})
