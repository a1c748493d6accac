/**
 * Entry of `dist/runtime.cjs`, the `pmfx-runtime` bin (docs/containers.md): the container entry
 * point. The command line is checked first (exit 2), then the listener settings (exit 2), then
 * the ecosystem file or script (its problems printed, exit 3) — before anything starts. As PID 1
 * it also reaps the zombies re-parented to it (runtime/ZombieReaper.ts).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Cause, Data, Effect, Either, Exit, Layer, Logger } from "effect"
import { renderError } from "./cli/output"
import { looksLikeEcosystemFile } from "./config/ConfigFormat"
import { ConfigLoader } from "./config/ConfigLoader"
import { runsOnNode } from "./config/validateEcosystem"
import { DaemonAlreadyRunning } from "./daemon/DaemonLock"
import { daemonEnvironmentForApps } from "./daemon/daemonEnvironment"
import { Paths } from "./shared/Paths"
import { webSettingsOf } from "./daemon/webSettingsOf"
import { errorMeta, ExitCode } from "./domain/errors"
import { parseRuntimeArgs, RUNTIME_USAGE, runtimeHelp, type RuntimeOptions } from "./runtime/RuntimeOptions"
import { runRuntime } from "./runtime/runRuntime"
import { startReaper } from "./runtime/ZombieReaper"

/** Start flags given with an ecosystem file (exit 2: they belong in the file). */
class StartFlagsWithFile extends Data.TaggedError("StartFlagsWithFile")<{ readonly message: string }> {}

const report = (line: string): void => void process.stderr.write(`${line}\n`)

const usageError = (message: string): void => {
  report(`pmfx-runtime: ${message}\n${RUNTIME_USAGE}\n  (pmfx-runtime --help describes each option)`)
  process.exitCode = ExitCode.usage
}

/** The runtime's own messages, on stderr (the apps' output owns stdout): text, or JSON with --json. */
const runtimeLogger = (json: boolean) =>
  Logger.make(({ date, logLevel, message }) => {
    const text = (Array.isArray(message) ? message : [message])
      .map((part) => (typeof part === "string" ? part : String(part)))
      .join(" ")
    report(
      json
        ? JSON.stringify({
            timestamp: date.toISOString(),
            app: "pmfx-runtime",
            level: logLevel.label.toLowerCase(),
            message: text
          })
        : `pmfx-runtime: ${text}`
    )
  })

/** The file's apps, or a script's one app from the start flags. */
const loadApps = (options: RuntimeOptions, target: string) =>
  Effect.gen(function* () {
    const loader = yield* ConfigLoader
    if (looksLikeEcosystemFile(target)) {
      if (Object.keys(options.scriptSettings).length > 0 || options.scriptArgs.length > 0) {
        return yield* new StartFlagsWithFile({
          message: `${Object.keys(options.scriptSettings).join(", ") || "script arguments"}: start flags are for a script; set these keys per app in ${target}`
        })
      }
      return yield* loader.loadFile(target, { environment: process.env })
    }
    // Command-line values are literal: `$` is escaped before the loader's ${VAR} substitution.
    const literal = (value: string | boolean) => (typeof value === "string" ? value.replace(/\$/g, "$$$$") : value)
    const app: Record<string, unknown> = { script: literal(target) }
    for (const [key, value] of Object.entries(options.scriptSettings)) app[key] = literal(value)
    // As `pmfx start` and pm2-runtime: -i with a Node script is cluster mode (one shared port);
    // in fork mode every instance would bind the same port and all but one crash-loop.
    const interpreter = options.scriptSettings.interpreter
    if (
      options.scriptSettings.instances !== undefined &&
      runsOnNode(target, typeof interpreter === "string" ? interpreter : undefined)
    )
      app.exec_mode = "cluster"
    if (options.scriptArgs.length > 0) app.args = options.scriptArgs.map((arg) => literal(arg))
    return yield* loader.fromDocument({ apps: [app] }, process.cwd(), { environment: process.env })
  })

export const main = (args: ReadonlyArray<string>): void => {
  const parsed = parseRuntimeArgs(args)
  if (Either.isLeft(parsed)) return usageError(parsed.left)
  const options = parsed.right
  if (options.help || options.target === undefined) {
    process.stdout.write(`${runtimeHelp()}\n`)
    return
  }
  const target = options.target
  const web = webSettingsOf(options.daemon)
  if (Either.isLeft(web)) return usageError(web.left)

  const program = Effect.gen(function* () {
    const loaded = yield* loadApps(options, target).pipe(
      Effect.map((ecosystem) => Either.right(ecosystem)),
      Effect.catchAll((error) =>
        Effect.sync(() => {
          if (error._tag === "StartFlagsWithFile") {
            usageError(error.message)
            return Either.left(ExitCode.usage)
          }
          report(`pmfx-runtime: ${target} cannot be started\n${renderError(error)}`)
          return Either.left(errorMeta[error._tag].exitCode)
        })
      )
    )
    if (Either.isLeft(loaded)) return loaded.left
    // Through the logger (text, or JSON with --json), as the runtime's other messages.
    for (const warning of loaded.right.warnings) yield* Effect.logWarning(`warning ${warning}`)
    if (process.pid === 1) {
      const problem = startReaper()
      if (problem !== null)
        yield* Effect.logWarning(
          `warning: cannot reap orphaned processes (${problem}); run the container with --init instead`
        )
    }
    return yield* runRuntime({
      ecosystem: loaded.right,
      env: daemonEnvironmentForApps(),
      logOutput: { files: options.logFiles, echo: { json: options.json } },
      web: web.right,
      listenerLimits: options.daemon.listenerLimits,
      autoExit: options.autoExit
    })
  }).pipe(
    Effect.catchTag("DaemonAlreadyRunning", (error: DaemonAlreadyRunning) =>
      Effect.sync(() => {
        report(
          `pmfx-runtime: a daemon (pid ${error.pid}) already runs for this PMFX_HOME (${error.file}); give the runtime a PMFX_HOME of its own`
        )
        return 1
      })
    ),
    Effect.catchTag("ServeError", (error) =>
      Effect.sync(() => {
        report(
          `pmfx-runtime: the API cannot be served on its socket (${String(error.cause)}); check that PMFX_HOME is writable`
        )
        return 1
      })
    ),
    Effect.catchAll((error) =>
      Effect.sync(() => {
        report(`pmfx-runtime: ${renderError(error)}`)
        return errorMeta[error._tag].exitCode
      })
    ),
    Effect.provide(
      Layer.mergeAll(
        Paths.Default,
        ConfigLoader.Default,
        Layer.mergeAll(NodeFileSystem.layer, NodePath.layer),
        Logger.replace(Logger.defaultLogger, runtimeLogger(options.json))
      )
    )
  )
  // Not NodeRuntime.runMain: the runtime handles SIGTERM/SIGINT/SIGQUIT itself (runRuntime), so
  // that the apps stop while the API still answers.
  const fiber = Effect.runFork(program)
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1)
  fiber.addObserver((exit) => {
    clearInterval(keepAlive)
    if (Exit.isSuccess(exit)) process.exit(exit.value)
    if (!Cause.isInterruptedOnly(exit.cause)) {
      report(`pmfx-runtime: ${Cause.pretty(exit.cause)}`)
      process.exit(1)
    }
    process.exit(0)
  })
}

if (require.main === module) main(process.argv.slice(2))
