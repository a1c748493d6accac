/**
 * Parses the text of a JSON, YAML or TOML ecosystem file into plain data, or says where it breaks
 * (1-based line and, where the parser knows it, column).
 */
import { Either } from "effect"
import type { LineCounter as YamlLineCounter } from "yaml"
import { MAX_NESTING, nestingDepth } from "../domain/nestingDepth"
import type { ConfigFormat } from "./ConfigFormat"
import { lineAndColumn } from "./jsonErrorPosition"

export interface SyntaxProblem {
  readonly message: string
  readonly line: number
  readonly column?: number
  /** What to do, when it is not "fix the syntax at line N". */
  readonly suggestion?: string
}

/**
 * How many times a YAML file may expand an alias (`*name`) in all. A "billion laughs" file nests
 * aliases of aliases so that a few lines expand to gigabytes; real ecosystem files reuse a block a
 * few times per app. (The `yaml` package's own default is 100, which a file with many apps
 * sharing an anchor could reach.)
 */
export const MAX_YAML_ALIASES = 1000

const DEPTH_SUGGESTION = `an ecosystem file needs about six levels ({apps: [{env: {…}}]}); remove the deeper nesting (and, in a JavaScript file, any value that refers to itself)`

/** The problem of data nested too deeply, at the start of the file (parsers do not say where). */
export const tooDeep = (what: string): SyntaxProblem => ({
  message: `${what} nests more than ${MAX_NESTING} levels deep (the limit for ecosystem files)`,
  line: 1,
  suggestion: DEPTH_SUGGESTION
})

/** Data nested within `MAX_NESTING`, or the problem saying it is not. */
export const checkNesting = (value: unknown, what: string): Either.Either<unknown, SyntaxProblem> =>
  nestingDepth(value) > MAX_NESTING ? Either.left(tooDeep(what)) : Either.right(value)

const isStackOverflow = (error: unknown): boolean => error instanceof RangeError && /call stack/i.test(error.message)

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

/** Where JSON5 says a text breaks: its `SyntaxError` carries 1-based `lineNumber` and `columnNumber`. */
const json5Position = (error: unknown, text: string): { line: number; column: number } => {
  const { lineNumber, columnNumber } = error as { lineNumber?: unknown; columnNumber?: unknown }
  if (typeof lineNumber !== "number" || typeof columnNumber !== "number") return lineAndColumn(text, text.length)
  // A line break inside a string is reported as column 0 of the next line: it is the end of the line before.
  if (columnNumber === 0 && lineNumber > 1)
    return { line: lineNumber - 1, column: (text.split("\n")[lineNumber - 2] ?? "").replace(/\r$/, "").length + 1 }
  return { line: lineNumber, column: Math.max(1, columnNumber) }
}

/**
 * JSON ecosystem files are read as JSON5 (docs/decisions.md, "Ecosystem .json files are JSON5"):
 * PM2 evaluates a `.json` file as JavaScript, so `//` comments, trailing commas, unquoted keys and
 * single quotes are common in real ones. Strict JSON goes through `JSON.parse` first (faster);
 * JSON5 parses iteratively, so deep nesting is measured after, not a stack overflow.
 */
const parseJson = async (withBom: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  // Editors on Windows may save a byte-order mark, which YAML and TOML skip but JSON.parse refuses.
  const text = withBom.replace(/^\uFEFF/, "")
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // Loaded on first use, like the YAML and TOML parsers: a daemon that never reads a JSON5 file
    // does not hold the parser (docs/benchmarks.md, "The daemon's memory, third pass").
    const { default: JSON5 } = await import("json5")
    try {
      parsed = JSON5.parse(text)
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error
      const reason = error.message.replace(/^JSON5: /, "").replace(/ at \d+:\d+$/, "")
      return Either.left({ message: `invalid JSON: ${reason}`, ...json5Position(error, text) })
    }
  }
  return checkNesting(parsed, "the JSON")
}

/** The line of the first alias (`*name`) in a YAML document, where a too-long expansion starts. */
const firstAliasLine = (
  YAML: typeof import("yaml"),
  doc: import("yaml").Document,
  lines: YamlLineCounter
): { line: number; column?: number } => {
  let offset: number | undefined
  YAML.visit(doc, {
    Alias: (_key, node) => {
      offset = node.range?.[0]
      return YAML.visit.BREAK
    }
  })
  if (offset === undefined) return { line: 1 }
  const pos = lines.linePos(offset)
  return { line: pos.line, column: pos.col }
}

const parseYaml = async (text: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  const YAML = await import("yaml")
  const lines = new YAML.LineCounter()
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines })
  const first = doc.errors[0]
  if (first !== undefined) {
    const pos = first.linePos?.[0]
    const deep = /call stack/i.test(first.message)
    const reason = deep
      ? `nests more than the parser can follow (the limit for ecosystem files is ${MAX_NESTING} levels)`
      : first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")
    return Either.left({
      message: `invalid YAML: ${reason}`,
      line: pos?.line ?? 1,
      ...(pos === undefined ? {} : { column: pos.col }),
      ...(deep ? { suggestion: DEPTH_SUGGESTION } : {})
    })
  }
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES })
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      return Either.left({
        message: `invalid YAML: its aliases (*name) expand to more than ${MAX_YAML_ALIASES} copies; aliases are limited so that a small file cannot expand to gigabytes`,
        ...firstAliasLine(YAML, doc, lines),
        suggestion:
          "use fewer aliases, and no alias of a block that holds aliases itself; write repeated settings out, or share them with `extends`"
      })
    }
    if (isStackOverflow(error)) return Either.left(tooDeep("the YAML"))
    throw error
  }
  return Either.map(checkNesting(value, "the YAML"), plain)
}

const parseToml = async (text: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  const TOML = await import("smol-toml")
  try {
    return Either.map(checkNesting(TOML.parse(text, { maxDepth: MAX_NESTING }), "the TOML"), plain)
  } catch (error) {
    if (error instanceof TOML.TomlError) {
      const deep = /excessively nested/i.test(error.message)
      const reason = deep
        ? `nests more than ${MAX_NESTING} levels deep (the limit for ecosystem files)`
        : error.message.split("\n")[0]
      return Either.left({
        message: `invalid TOML: ${reason}`,
        line: error.line,
        column: error.column,
        ...(deep ? { suggestion: DEPTH_SUGGESTION } : {})
      })
    }
    if (isStackOverflow(error)) return Either.left(tooDeep("the TOML"))
    throw error
  }
}

export const parseConfigText = (
  text: string,
  format: Exclude<ConfigFormat, "module">
): Promise<Either.Either<unknown, SyntaxProblem>> =>
  format === "json" ? parseJson(text) : format === "yaml" ? parseYaml(text) : parseToml(text)

export { plain as toPlainData }
