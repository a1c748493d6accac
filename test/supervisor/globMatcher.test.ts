/** `ignore_watch` patterns through picomatch (src/supervisor/globMatcher.ts): PM2's rules plus braces, classes and negation. */
import { describe, expect, it } from "@effect/vitest"
import { makeIgnoreMatcher } from "../../src/supervisor/globMatcher"

const root = "/srv/app"
const ignores = (patterns: ReadonlyArray<string>, file: string) => makeIgnoreMatcher(root, patterns)(`${root}/${file}`)

describe("makeIgnoreMatcher", () => {
  it("keeps PM2's rules: a pattern without a slash matches any segment, one with a slash the relative path and below", () => {
    expect(ignores(["node_modules"], "node_modules")).toBe(true)
    expect(ignores(["node_modules"], "packages/a/node_modules/x/index.js")).toBe(true)
    expect(ignores(["*.log"], "logs/out.log")).toBe(true)
    expect(ignores(["*.log"], "logs/out.txt")).toBe(false)
    expect(ignores(["dist/cache"], "dist/cache/a.js")).toBe(true)
    expect(ignores(["dist/cache"], "src/dist/cache/a.js")).toBe(false)
    expect(ignores(["./build/"], "build/x")).toBe(true)
    expect(ignores(["src/**/*.test.js"], "src/a/b/c.test.js")).toBe(true)
    expect(ignores(["src/**/*.test.js"], "src/c.js")).toBe(false)
    expect(ignores(["file?.txt"], "file1.txt")).toBe(true)
    expect(ignores(["file?.txt"], "file10.txt")).toBe(false)
    expect(ignores(["/srv/app/tmp"], "tmp/x/y")).toBe(true)
    expect(makeIgnoreMatcher(root, ["/data/tmp"])("/data/tmp/x")).toBe(true)
    expect(ignores([], "anything")).toBe(false)
  })

  it("matches braces, classes and extglobs", () => {
    expect(ignores(["*.{log,tmp}"], "a/b.tmp")).toBe(true)
    expect(ignores(["*.{log,tmp}"], "a/b.log")).toBe(true)
    expect(ignores(["*.{log,tmp}"], "a/b.js")).toBe(false)
    expect(ignores(["{dist,coverage}/**"], "coverage/lcov/index.html")).toBe(true)
    expect(ignores(["report-[0-9][0-9].json"], "report-42.json")).toBe(true)
    expect(ignores(["report-[0-9][0-9].json"], "report-4x.json")).toBe(false)
    expect(ignores(["*.+(jpg|png)"], "img/a.png")).toBe(true)
    expect(ignores(["*.+(jpg|png)"], "img/a.gif")).toBe(false)
  })

  it("brings back what an earlier pattern ignored with !pattern; the last match decides", () => {
    const patterns = ["*.log", "!keep.log"]
    expect(ignores(patterns, "a.log")).toBe(true)
    expect(ignores(patterns, "logs/keep.log")).toBe(false)
    expect(ignores([...patterns, "logs/*"], "logs/keep.log")).toBe(true)
    // `!(…)` is an extglob, not a negation.
    expect(ignores(["!(*.js)"], "readme.md")).toBe(true)
    expect(ignores(["!(*.js)"], "index.js")).toBe(false)
  })

  it("matches dot files like any other", () => {
    expect(ignores(["*.log"], ".debug.log")).toBe(true)
    expect(ignores([".cache"], ".cache/x")).toBe(true)
  })
})
