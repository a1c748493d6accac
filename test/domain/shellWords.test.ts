import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { quoteShellWord, splitShellWords } from "../../src/domain/shellWords"

const split = (line: string): Array<string> => {
  const result = splitShellWords(line)
  if (Either.isLeft(result)) throw new Error(`expected ${JSON.stringify(line)} to split, got: ${result.left}`)
  return result.right
}

describe("splitShellWords", () => {
  it("splits on runs of whitespace and ignores leading/trailing whitespace", () => {
    expect(split("node server.js --port 3000")).toStrictEqual(["node", "server.js", "--port", "3000"])
    expect(split("  a   b\tc\n d  ")).toStrictEqual(["a", "b", "c", "d"])
  })

  it("returns no words for an empty or blank line", () => {
    expect(split("")).toStrictEqual([])
    expect(split("   \t ")).toStrictEqual([])
  })

  it("keeps whitespace and special characters inside single quotes literally", () => {
    expect(split(`echo 'hello   world'`)).toStrictEqual(["echo", "hello   world"])
    expect(split(`'a "b" \\c $d'`)).toStrictEqual([`a "b" \\c $d`])
  })

  it("keeps whitespace inside double quotes and honours their escapes", () => {
    expect(split(`echo "hello   world"`)).toStrictEqual(["echo", "hello   world"])
    expect(split(`"say \\"hi\\""`)).toStrictEqual([`say "hi"`])
    expect(split(`"a\\\\b"`)).toStrictEqual([`a\\b`])
    expect(split(`"\\$HOME"`)).toStrictEqual([`$HOME`])
    expect(split('"\\`x\\`"')).toStrictEqual(["`x`"])
  })

  it("keeps a backslash before other characters inside double quotes", () => {
    expect(split(`"a\\nb"`)).toStrictEqual([`a\\nb`])
    expect(split(`"C:\\path"`)).toStrictEqual([`C:\\path`])
  })

  it("does not expand variables or globs", () => {
    expect(split(`echo $HOME *.js "$PATH"`)).toStrictEqual(["echo", "$HOME", "*.js", "$PATH"])
  })

  it("treats a backslash outside quotes as escaping the next character", () => {
    expect(split(`a\\ b c`)).toStrictEqual(["a b", "c"])
    expect(split(`\\'quoted\\'`)).toStrictEqual([`'quoted'`])
    expect(split(`\\"x\\"`)).toStrictEqual([`"x"`])
    expect(split(`a\\\\b`)).toStrictEqual([`a\\b`])
  })

  it("joins adjacent quoted and unquoted parts into one word", () => {
    expect(split(`--name='my app'`)).toStrictEqual(["--name=my app"])
    expect(split(`a"b c"'d e'f`)).toStrictEqual(["ab cd ef"])
  })

  it("keeps empty quoted strings as empty words", () => {
    expect(split(`''`)).toStrictEqual([""])
    expect(split(`""`)).toStrictEqual([""])
    expect(split(`a '' b "" c`)).toStrictEqual(["a", "", "b", "", "c"])
    expect(split(`cmd ''`)).toStrictEqual(["cmd", ""])
  })

  it("rejects unterminated quotes, naming which kind", () => {
    expect(splitShellWords(`echo 'oops`)).toStrictEqual(Either.left("unterminated single quote"))
    expect(splitShellWords(`echo "oops`)).toStrictEqual(Either.left("unterminated double quote"))
    expect(splitShellWords(`"it's`)).toStrictEqual(Either.left("unterminated double quote"))
    expect(splitShellWords(`'say "hi`)).toStrictEqual(Either.left("unterminated single quote"))
    expect(splitShellWords(`"a\\"`)).toStrictEqual(Either.left("unterminated double quote"))
  })
})

describe("quoteShellWord", () => {
  it("leaves safe words bare", () => {
    for (const word of ["node", "server.js", "--port=3000", "a,b", "user@host:/path", "50%", "a+b", "./x/y-z_1"]) {
      expect(quoteShellWord(word)).toBe(word)
    }
  })

  it("single-quotes words with special characters", () => {
    expect(quoteShellWord("hello world")).toBe(`'hello world'`)
    expect(quoteShellWord("$HOME")).toBe(`'$HOME'`)
    expect(quoteShellWord("")).toBe(`''`)
    expect(quoteShellWord("it's")).toBe(`'it'\\''s'`)
  })

  it("round-trips awkward words through splitShellWords", () => {
    const words = [
      "",
      "plain",
      "two words",
      "  padded  ",
      "it's",
      "'",
      "''",
      `"`,
      `say "hi"`,
      "back\\slash",
      "\\",
      "trailing\\",
      "$HOME",
      "`date`",
      "a;b&&c|d>e<f",
      "*.js",
      "tab\there",
      "new\nline",
      "ünïcødé ✓",
      "--flag='x y'",
      "#comment",
      "~"
    ]
    const line = words.map(quoteShellWord).join(" ")
    expect(split(line)).toStrictEqual(words)
    for (const word of words) expect(split(quoteShellWord(word))).toStrictEqual([word])
  })
})
