/**
 * Shared helpers of the configuration tests: a fresh temporary folder per test (removed
 * afterwards), files written into it, and the loader called with a fixed CPU count and an empty
 * environment unless a test says otherwise.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { LoadedEcosystem, LoadOptions } from "../../src/config/ConfigLoader"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { ConfigParseError, InvalidConfig } from "../../src/domain/errors"

/** Root of the repository's examples. */
export const examplesDir = fileURLToPath(new URL("../../examples", import.meta.url))

/** Runs `use` with a fresh temporary folder that is removed afterwards, whatever happens. */
export const withTempDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-test-"))),
    use,
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Writes `files` (relative name → text; objects are written as JSON) under `dir`; returns `dir`. */
export const writeFiles = (dir: string, files: Readonly<Record<string, string | object>>): string => {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
  }
  return dir
}

export const defaultOptions: LoadOptions = { environment: {}, cpus: 4 }

/** Loads `file` with the default options overridden by `options`. */
export const load = (
  file: string,
  options: Partial<LoadOptions> = {}
): Effect.Effect<LoadedEcosystem, ConfigParseError | InvalidConfig, ConfigLoader> =>
  Effect.flatMap(ConfigLoader, (loader) => loader.loadFile(file, { ...defaultOptions, ...options }))

/** Loads `file` and returns its error (the test fails, with the loaded result, when the file loads). */
export const loadError = (
  file: string,
  options: Partial<LoadOptions> = {}
): Effect.Effect<ConfigParseError | InvalidConfig, LoadedEcosystem, ConfigLoader> => Effect.flip(load(file, options))

/** Writes `files` into a fresh folder and loads `entry` from it. */
export const loadFiles = (
  files: Readonly<Record<string, string | object>>,
  entry: string,
  options: Partial<LoadOptions> = {}
): Effect.Effect<LoadedEcosystem, ConfigParseError | InvalidConfig, ConfigLoader> =>
  withTempDir((dir) => load(path.join(writeFiles(dir, files), entry), options))

/** Writes `files` into a fresh folder, loads `entry` and returns the error with the folder it was in. */
export const loadFilesError = (
  files: Readonly<Record<string, string | object>>,
  entry: string,
  options: Partial<LoadOptions> = {}
): Effect.Effect<
  { readonly error: ConfigParseError | InvalidConfig; readonly dir: string },
  LoadedEcosystem,
  ConfigLoader
> =>
  withTempDir((dir) =>
    Effect.map(loadError(path.join(writeFiles(dir, files), entry), options), (error) => ({ error, dir }))
  )

/** The `{apps:[...]}` JSON of the given apps. */
export const ecosystem = (...apps: ReadonlyArray<object>): object => ({ apps })
