/**
 * Loads ecosystem files exactly as users write them (docs/architecture.md §6): JSON, YAML, TOML or JavaScript;
 * `extends` chains; `${VAR}` substitution; validation that reports every problem at once; then the
 * resolved definitions with defaults applied and absolute paths. `fromDocument` does the same for a
 * definition that did not come from a file (the CLI's `start <command>`, `POST /api/processes`).
 */
import { FileSystem } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { AlertRules, AppDefinition, Webhook } from "../domain/AppDefinition"
import type { ConfigProblem } from "../domain/errors"
import { ConfigParseError, InvalidConfig } from "../domain/errors"
import { asEcosystem } from "./bareApps"
import { formatOf, supportedExtensions } from "./ConfigFormat"
import { loadModuleConfig } from "./loadModuleConfig"
import { isRecord, mergeEcosystems, mergeSettings } from "./mergeSettings"
import { parseConfigText } from "./parseConfigText"
import { parseEnvFile } from "./parseEnvFile"
import { findInPath } from "../supervisor/commandLine"
import { resolveAlerts, resolveApp } from "./resolveApp"
import { substituteEnv } from "./substituteEnv"
import type { ValidatedEcosystem } from "./validateEcosystem"
import { validateEcosystem } from "./validateEcosystem"

export interface LoadOptions {
  /** Variables for `${NAME}` substitution: the environment of whoever asked. */
  readonly environment: Readonly<Record<string, string | undefined>>
  /** `--env <name>`: merge each app's `env_<name>` block over its `env`. */
  readonly envName?: string | undefined
  /** CPU count for `instances: max`; defaults to this machine's. */
  readonly cpus?: number | undefined
  /** Unknown keys are problems, not warnings (`pmfx validate --strict`). */
  readonly strict?: boolean | undefined
}

export interface LoadedEcosystem {
  /** Absolute path of the file, or null for a definition given directly. */
  readonly file: string | null
  readonly apps: ReadonlyArray<AppDefinition>
  readonly webhooks: ReadonlyArray<Webhook>
  readonly alerts: AlertRules | null
  /** Settings that were accepted but ignored (PM2-only keys and the like). */
  readonly warnings: ReadonlyArray<string>
}

type LoadError = ConfigParseError | InvalidConfig

const isFile = (file: string): boolean => {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

const problem = (field: string, value: unknown, message: string, suggestion: string): ConfigProblem => ({
  field,
  value,
  message,
  suggestion
})

export class ConfigLoader extends Effect.Service<ConfigLoader>()("pmfx/ConfigLoader", {
  effect: Effect.gen(function* () {
    const fileSystem = yield* FileSystem.FileSystem

    /** Reads and parses one file, with no `extends` applied. */
    const parseFile = (file: string): Effect.Effect<unknown, ConfigParseError> =>
      Effect.gen(function* () {
        const format = formatOf(file)
        if (format === undefined) {
          return yield* new ConfigParseError({
            message: `${file}: unsupported file type "${path.extname(file) || "(none)"}"`,
            details: { file, line: 0, suggestion: `use one of ${supportedExtensions.join(", ")}` }
          })
        }
        if (!isFile(file)) {
          return yield* new ConfigParseError({
            message: `${file}: no such file`,
            details: { file, line: 0, suggestion: "check the path; relative paths start from the current folder" }
          })
        }
        const parsed =
          format === "module"
            ? yield* Effect.promise(() => loadModuleConfig(file))
            : yield* fileSystem.readFileString(file).pipe(
                Effect.mapError(
                  (error) =>
                    new ConfigParseError({
                      message: `${file}: cannot read: ${error.message}`,
                      details: { file, line: 0, suggestion: "check that the file is readable" }
                    })
                ),
                Effect.flatMap((text) => Effect.promise(() => parseConfigText(text, format)))
              )
        if (Either.isLeft(parsed)) {
          const { message, line, column, suggestion } = parsed.left
          return yield* new ConfigParseError({
            message: `${file}:${line}${column === undefined ? "" : `:${column}`}: ${message}`,
            details: {
              file,
              line,
              ...(column === undefined ? {} : { column }),
              suggestion:
                suggestion ??
                (format === "module"
                  ? "fix the error the file throws, then validate again"
                  : `fix the ${format.toUpperCase()} syntax at line ${line}`)
            }
          })
        }
        return parsed.right
      })

    /** Follows an `extends` path, refusing cycles and missing files. */
    const readBase = (
      from: string,
      field: string,
      target: unknown,
      chain: ReadonlyArray<string>
    ): Effect.Effect<{ readonly file: string; readonly doc: unknown }, LoadError> =>
      Effect.gen(function* () {
        if (typeof target !== "string" || target.trim() === "") {
          return yield* InvalidConfig.fromProblems(
            [problem(field, target, "must be the path of a base configuration file", 'write "extends": "./base.json"')],
            from
          )
        }
        const file = path.resolve(path.dirname(from), target)
        if (chain.includes(file)) {
          const cycle = [...chain.slice(chain.indexOf(file)), file].map((f) => path.basename(f)).join(" → ")
          return yield* InvalidConfig.fromProblems(
            [problem(field, target, `extends forms a cycle: ${cycle}`, "remove the extends that points back")],
            from
          )
        }
        if (!isFile(file)) {
          return yield* InvalidConfig.fromProblems(
            [
              problem(
                field,
                target,
                `base file ${file} does not exist`,
                "check the path; it is relative to the file that extends it"
              )
            ],
            from
          )
        }
        return { file, doc: yield* parseFile(file) }
      })

    /** A base for one app: a settings object, or the same-named (or only) app of an ecosystem file. */
    const appBase = (
      base: { readonly file: string; readonly doc: unknown },
      appName: unknown,
      field: string,
      chain: ReadonlyArray<string>
    ): Effect.Effect<unknown, LoadError> =>
      Effect.gen(function* () {
        let settings: unknown = base.doc
        if (isRecord(base.doc) && Array.isArray(base.doc.apps)) {
          const apps = base.doc.apps
          settings = apps.find((a) => isRecord(a) && a.name === appName) ?? (apps.length === 1 ? apps[0] : undefined)
          if (settings === undefined) {
            return yield* InvalidConfig.fromProblems(
              [
                problem(
                  field,
                  path.basename(base.file),
                  `${base.file} has no app named ${JSON.stringify(appName)}`,
                  "extend a file holding one app's settings, or name the app the same in both"
                )
              ],
              chain[chain.length - 1]
            )
          }
        }
        return yield* withAppExtends(settings, base.file, field, [...chain, base.file])
      })

    const withAppExtends = (
      app: unknown,
      file: string,
      field: string,
      chain: ReadonlyArray<string>
    ): Effect.Effect<unknown, LoadError> =>
      Effect.gen(function* () {
        if (!isRecord(app) || !("extends" in app)) return app
        const { extends: target, ...own } = app
        const base = yield* readBase(file, field, target, chain)
        return mergeSettings(yield* appBase(base, own.name, field, chain), own)
      })

    /** A file with every `extends` (top level and per app) merged in. */
    const readDocument = (file: string, chain: ReadonlyArray<string>): Effect.Effect<unknown, LoadError> =>
      Effect.gen(function* () {
        let doc = asEcosystem(yield* parseFile(file))
        if (isRecord(doc) && "extends" in doc) {
          const { extends: target, ...own } = doc
          const base = yield* readBase(file, "extends", target, [...chain, file])
          const baseDoc = yield* readDocument(base.file, [...chain, file])
          doc = isRecord(baseDoc) ? mergeEcosystems(baseDoc, own) : own
        }
        if (isRecord(doc) && Array.isArray(doc.apps)) {
          const apps = yield* Effect.forEach(doc.apps, (app, i) =>
            withAppExtends(app, file, `apps[${i}].extends`, [...chain, file])
          )
          doc = { ...doc, apps }
        }
        return doc
      })

    /** Problems with `env_file`s: each must exist and be valid dotenv syntax. */
    const checkEnvFiles = (validated: ValidatedEcosystem, baseDir: string) =>
      Effect.forEach(validated.apps, (app) =>
        Effect.gen(function* () {
          const field = `apps[${app.index}].env_file`
          const written = app.settings.env_file
          if (written === undefined) return []
          const file = path.resolve(baseDir, written)
          if (!isFile(file))
            return [
              problem(
                field,
                written,
                `file ${file} does not exist`,
                "create it or fix the path; it is relative to the configuration file"
              )
            ]
          const text = yield* fileSystem.readFileString(file).pipe(Effect.either)
          if (Either.isLeft(text))
            return [
              problem(field, written, `cannot read ${file}: ${text.left.message}`, "check the file's permissions")
            ]
          const parsed = parseEnvFile(text.right)
          return Either.isLeft(parsed)
            ? [
                problem(
                  field,
                  written,
                  `${file}:${parsed.left.line}: ${parsed.left.message}`,
                  "write one KEY=value per line"
                )
              ]
            : []
        })
      ).pipe(Effect.map((lists) => lists.flat()))

    const finish = (
      doc: unknown,
      file: string | null,
      baseDir: string,
      options: LoadOptions
    ): Effect.Effect<LoadedEcosystem, InvalidConfig> =>
      Effect.gen(function* () {
        const cpus = options.cpus ?? os.availableParallelism()
        const selectedBlock = options.envName === undefined ? undefined : `env_${options.envName}`
        const unused = (at: string) => {
          if (at === "deploy") return true
          const block = /^apps\[\d+\]\.(env_[^.]+)/.exec(at)?.[1]
          return block !== undefined && block !== "env_file" && block !== selectedBlock
        }
        const substituted = substituteEnv(doc, options.environment, "", unused)
        const validated = validateEcosystem(substituted.value, { cpus, strict: options.strict })
        const problems = [...substituted.problems, ...validated.problems, ...(yield* checkEnvFiles(validated, baseDir))]
        if (problems.length > 0) return yield* InvalidConfig.fromProblems(problems, file ?? undefined)
        const warnings = [...validated.warnings]
        const { envName } = options
        const hasCommand = (command: string) => findInPath(command, options.environment.PATH) !== undefined
        if (envName !== undefined && !validated.apps.some((app) => envName in app.envBlocks)) {
          warnings.push(`--env ${envName}: no app has an env_${envName} block`)
        }
        return {
          file,
          apps: validated.apps.map((app) => ({
            ...resolveApp(app, { baseDir, cpus, envName, isFile, hasCommand }),
            config_file: file
          })),
          webhooks: (validated.top.webhooks ?? []).map((hook) => ({
            enabled: hook.enabled ?? true,
            url: hook.url,
            events: hook.events ?? [
              "process_crash",
              "high_memory",
              "cpu_threshold",
              "restart_loop",
              "health_check_failure"
            ]
          })),
          alerts: resolveAlerts(validated.top.alerts),
          warnings
        }
      })

    return {
      /** Loads an ecosystem file. */
      loadFile: (file: string, options: LoadOptions): Effect.Effect<LoadedEcosystem, LoadError> =>
        Effect.gen(function* () {
          const absolute = path.resolve(file)
          const doc = yield* readDocument(absolute, [])
          return yield* finish(doc, absolute, path.dirname(absolute), options)
        }),
      /**
       * Validates and resolves definitions given as data: one app's settings or `{apps:[...]}`.
       * Relative paths resolve against `baseDir`. An object without `apps` is one app, even one
       * missing its `script` (reported as `apps[0].script`, not as a missing `apps`).
       */
      fromDocument: (
        doc: unknown,
        baseDir: string,
        options: LoadOptions
      ): Effect.Effect<LoadedEcosystem, InvalidConfig> =>
        finish(
          Array.isArray(doc) ? { apps: doc } : isRecord(doc) && !("apps" in doc) ? { apps: [doc] } : doc,
          null,
          baseDir,
          options
        )
    }
  }),
  dependencies: [NodeFileSystem.layer]
}) {}
