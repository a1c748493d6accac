/** `grep` patterns that could stall the daemon are refused; ordinary ones pass (DESIGN §7, decisions). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { compileLogQuery } from "../../src/logs/LogQuery"
import { MAX_GREP_LENGTH, regexRisk } from "../../src/logs/regexRisk"

describe("regexRisk", () => {
  it.each([
    "(a+)+",
    "(a+)+$",
    "((a+))+",
    "(\\w*)*",
    "(.*,){20}",
    "(x+x+)+y",
    "^(([a-z])+.)+[A-Z]([a-z])+$",
    "(?:a*)+",
    "(a{2,})*"
  ])("refuses %s", (pattern) => {
    expect(regexRisk(pattern)).toContain("exponential")
  })

  it.each(["error", "timeout|refused", "/timeout/i", "error.*timeout", "^\\[\\d+\\] GET /api", "(GET|POST) /health", "(a+)", "(ab)+", "[(a+)+]", "\\(a+\\)+", "(a+)?", "(a{2}){3}", "id=\\d{1,6}"])(
    "accepts %s",
    (pattern) => {
      expect(regexRisk(pattern)).toBeNull()
    }
  )

  it("refuses a pattern over the length limit", () => {
    expect(regexRisk("a".repeat(MAX_GREP_LENGTH + 1))).toContain("longer than")
    expect(regexRisk("a".repeat(MAX_GREP_LENGTH))).toBeNull()
  })

  it("makes a log query with such a grep a BAD_REQUEST naming the field", () => {
    const result = compileLogQuery({ grep: "(a+)+$" }, { instances: 1 }, Date.now())
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left._tag).toBe("BAD_REQUEST")
      expect(result.left.details).toMatchObject({ field: "grep", reason: expect.stringContaining("exponential") })
    }
    expect(Either.isRight(compileLogQuery({ grep: "error.*timeout" }, { instances: 1 }, Date.now()))).toBe(true)
  })
})
