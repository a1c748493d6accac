/**
 * Parses the text of a JSON, YAML or TOML ecosystem file into plain data, or says where it breaks
 * (1-based line and, where the parser knows it, column).
 */
import { Either } from "effect"
import type { ConfigFormat } from "./ConfigFormat"
import { jsonErrorOffset, lineAndColumn } from "./jsonErrorPosition"

export interface SyntaxProblem {
  readonly message: string
  readonly line: number
  readonly column?: number
}

/**
 * Copies parsed data into plain objects (TOML's have no prototype; YAML may share nodes). A key
 * whose value is `undefined` (`cwd: process.env.APP_DIR` in a JavaScript file, with the variable
 * unset) is left out, as JSON (and so PM2) would: the setting is simply not given.
 */
const plain = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(plain)
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v)
    return out
  }
  if (typeof value === "bigint") return Number(value)
  return value
}

const parseJson = (withBom: string): Either.Either<unknown, SyntaxProblem> => {
  // Editors on Windows may save a byte-order mark, which YAML and TOML skip but JSON.parse refuses.
  const text = withBom.replace(/^\uFEFF/, "")
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    const offset = jsonErrorOffset(text)
    const where = lineAndColumn(text, offset < 0 ? text.length : offset)
    const reason = error instanceof Error ? error.message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "") : String(error)
    return Either.left({ message: `invalid JSON: ${reason}`, ...where })
  }
}

const parseYaml = async (text: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  const YAML = await import("yaml")
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true })
  const first = doc.errors[0]
  if (first !== undefined) {
    const pos = first.linePos?.[0]
    return Either.left({
      message: `invalid YAML: ${first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`,
      line: pos?.line ?? 1,
      ...(pos === undefined ? {} : { column: pos.col })
    })
  }
  return Either.right(plain(doc.toJS()))
}

const parseToml = async (text: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  const TOML = await import("smol-toml")
  try {
    return Either.right(plain(TOML.parse(text)))
  } catch (error) {
    if (error instanceof TOML.TomlError) {
      return Either.left({
        message: `invalid TOML: ${error.message.split("\n")[0]}`,
        line: error.line,
        column: error.column
      })
    }
    throw error
  }
}

export const parseConfigText = (
  text: string,
  format: Exclude<ConfigFormat, "module">
): Promise<Either.Either<unknown, SyntaxProblem>> =>
  format === "json" ? Promise.resolve(parseJson(text)) : format === "yaml" ? parseYaml(text) : parseToml(text)

export { plain as toPlainData }
