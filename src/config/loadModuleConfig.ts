/**
 * Loads a `.js`, `.cjs` or `.mjs` ecosystem file exporting `{ apps }` (`module.exports = …` or
 * `export default …`), fresh on every call so a long-running daemon sees edits.
 */
import { Either } from "effect"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import type { SyntaxProblem } from "./parseConfigText"
import { toPlainData } from "./parseConfigText"

// Hidden from the bundler, which would otherwise turn `import()` into `require()` in the CJS bundle
// and so lose the ability to load ES modules.
const importModule = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>

const loadFresh = async (file: string): Promise<unknown> => {
  const require = createRequire(file)
  try {
    delete require.cache[file]
    return require(file)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (typeof code === "string" && code.startsWith("ERR_REQUIRE_")) {
      // An ES module: a query string makes the loader read the file anew each time.
      return importModule(`${pathToFileURL(file).href}?pmfx=${Date.now()}`)
    }
    throw error
  }
}

/** The line in `file` that a thrown error points at (syntax errors and runtime throws alike). */
const lineOf = (error: unknown, file: string): { line: number; column?: number } => {
  const stack = error instanceof Error ? (error.stack ?? "") : ""
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  const where = new RegExp(`(?:${escape(file)}|${escape(pathToFileURL(file).href)})(?:\\?[^:]*)?:(\\d+)(?::(\\d+))?`)
  const match = where.exec(stack)
  if (match === null) return { line: 0 }
  return { line: Number(match[1]), ...(match[2] === undefined ? {} : { column: Number(match[2]) }) }
}

export const loadModuleConfig = async (file: string): Promise<Either.Either<unknown, SyntaxProblem>> => {
  try {
    const loaded = (await loadFresh(file)) as { default?: unknown; __esModule?: unknown } | null
    const value =
      loaded !== null && typeof loaded === "object" && "default" in loaded && !("apps" in loaded) ? loaded.default : loaded
    return Either.right(toPlainData(value))
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    return Either.left({ message: `the file threw while loading: ${reason.split("\n")[0]}`, ...lineOf(error, file) })
  }
}
