/**
 * Loads a `.js`, `.cjs` or `.mjs` ecosystem file exporting `{ apps }` (`module.exports = …` or
 * `export default …`), fresh on every call so a long-running daemon sees edits.
 */
import { Either } from "effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { SyntaxProblem } from "./parseConfigText"
import { checkNesting, toPlainData } from "./parseConfigText"

// Hidden from the bundler, which would otherwise turn `import()` into `require()` in the CJS bundle
// and so lose the ability to load ES modules.
let importModule = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<unknown>

/**
 * Replaces how ES modules are imported. A CLI started from its startup snapshot needs it: code
 * evaluated while the snapshot was made has no `import()` (src/cliSnapshot.ts).
 */
export const useModuleImporter = (importer: (specifier: string) => Promise<unknown>): void => {
  importModule = importer
}

let imports = 0

/**
 * An ES module, read anew each time: a query string never used before keeps the loader from
 * reusing its cache (a timestamp alone repeats when two loads fall in the same millisecond).
 */
const importFresh = (file: string): Promise<unknown> =>
  importModule(`${pathToFileURL(file).href}?pmfx=${Date.now()}-${++imports}`)

const errorCode = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined

/** What `require` returns for an ES module (Node ≥ 20.19 and 22.12 `require()` those too). */
const isModuleNamespace = (u: unknown): boolean => Object.prototype.toString.call(u) === "[object Module]"

const loadFresh = async (file: string): Promise<unknown> => {
  const require = createRequire(file)
  const viaRequire = (): unknown => {
    delete require.cache[file]
    return require(file)
  }
  if (path.extname(file).toLowerCase() !== ".mjs") {
    try {
      const loaded = viaRequire()
      // `require` keeps an ES module in the ESM loader's cache, out of reach of `require.cache`, so
      // it would never see an edit: import those anew below.
      if (!isModuleNamespace(loaded)) return loaded
    } catch (error) {
      const code = errorCode(error)
      if (!(typeof code === "string" && code.startsWith("ERR_REQUIRE_"))) throw error
    }
  }
  try {
    return await importFresh(file)
  } catch (error) {
    // Code run inside a vm context without an import callback (a test runner's) cannot `import()`;
    // `require` still loads the module there, from its cache.
    if (errorCode(error) === "ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING") return viaRequire()
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
      loaded !== null && typeof loaded === "object" && "default" in loaded && !("apps" in loaded)
        ? loaded.default
        : loaded
    // Checked before copying: the copy recurses, and a module's value may nest without end (refer to itself).
    return Either.map(checkNesting(value, "the exported value"), toPlainData)
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    return Either.left({ message: `the file threw while loading: ${reason.split("\n")[0]}`, ...lineOf(error, file) })
  }
}
