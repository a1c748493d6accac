/**
 * Reads dotenv syntax: `KEY=value`, `export KEY=value`, `# comments`, blank lines, single quotes
 * (literal), double quotes (with `\n`, `\t`, `\"`, `\\` escapes, may span lines), and unquoted
 * values with a trailing ` # comment` removed.
 */
import { Either } from "effect"

export interface EnvFileProblem {
  readonly line: number
  readonly message: string
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/s

export const parseEnvFile = (text: string): Either.Either<Record<string, string>, EnvFileProblem> => {
  const lines = text.replace(/\r\n/g, "\n").split("\n")
  const vars: Record<string, string> = {}
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index]!
    if (/^\s*(#.*)?$/.test(raw)) continue
    const match = LINE.exec(raw)
    if (match === null)
      return Either.left({ line: index + 1, message: `expected KEY=value, got ${JSON.stringify(raw.trim())}` })
    const key = match[1]!
    let rest = match[2]!
    const quote = rest[0]
    if (quote === "'" || quote === '"') {
      const startLine = index + 1
      let body = rest.slice(1)
      // A double-quoted value may continue on the following lines until its closing quote.
      while (!hasClosingQuote(body, quote) && quote === '"' && index + 1 < lines.length) body += "\n" + lines[++index]
      const end = closingQuoteIndex(body, quote)
      if (end < 0)
        return Either.left({
          line: startLine,
          message: `unterminated ${quote === "'" ? "single" : "double"} quote in ${key}`
        })
      const inner = body.slice(0, end)
      vars[key] = quote === "'" ? inner : unescapeDouble(inner)
    } else {
      rest = rest.replace(/\s+#.*$/, "")
      vars[key] = rest.trim()
    }
  }
  return Either.right(vars)
}

const closingQuoteIndex = (body: string, quote: string): number => {
  for (let i = 0; i < body.length; i++) {
    if (quote === '"' && body[i] === "\\") i++
    else if (body[i] === quote) return i
  }
  return -1
}

const hasClosingQuote = (body: string, quote: string) => closingQuoteIndex(body, quote) >= 0

const unescapeDouble = (s: string): string =>
  s.replace(/\\([nrt"\\$])/g, (_, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c)
