/**
 * Splits a command line into words with POSIX shell quoting rules (single quotes, double quotes,
 * backslash escapes) — and nothing else: no variables, globs or operators, because pmfx never runs
 * a command through a shell unless the user asks for one.
 */
import { Either } from "effect"

export const splitShellWords = (line: string): Either.Either<Array<string>, string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let quote: "'" | '"' | null = null
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote === "'") {
      if (c === "'") quote = null
      else word += c
    } else if (quote === '"') {
      if (c === '"') quote = null
      else if (c === "\\" && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) word += line[++i]
      else word += c
    } else if (c === "'" || c === '"') {
      quote = c
      inWord = true
    } else if (c === "\\") {
      if (i + 1 < line.length) word += line[++i]
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
    } else {
      word += c
      inWord = true
    }
  }
  if (quote !== null) return Either.left(`unterminated ${quote === "'" ? "single" : "double"} quote`)
  if (inWord) words.push(word)
  return Either.right(words)
}

/** Quotes a word for display so that `splitShellWords` reads it back unchanged. */
export const quoteShellWord = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
