/**
 * Entry of `dist/daemon.cjs`: the daemon in the foreground (`pmfx daemon`, systemd, containers)
 * and in the background (started by the CLI, with no arguments). Kept out of the CLI bundle so
 * that everyday commands do not load the server.
 *
 * `pmfx daemon [--web ...] [--config file]` (DaemonOptions.ts): the command line is checked first
 * (exit 2), then the listener settings by the rules of `pmfx web` (exit 2), then the ecosystem
 * file (its problems printed, exit 3) — all before the daemon takes its lock or starts anything.
 * The keys may come from PMFX_API_KEY / PMFX_READONLY_API_KEY, which only a foreground daemon can
 * have: the CLI starts the background one without them (daemon/daemonEnvironment.ts).
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Cause, Console, Effect, Either, Exit, Layer } from "effect"
import { renderError } from "./cli/output"
import { ConfigLoader } from "./config/ConfigLoader"
import { DaemonAlreadyRunning } from "./daemon/DaemonLock"
import { daemonEnvironmentForApps } from "./daemon/daemonEnvironment"
import { DAEMON_USAGE, daemonHelp, parseDaemonArgs } from "./daemon/DaemonOptions"
import { Paths } from "./shared/Paths"
import { runDaemon } from "./daemon/runDaemon"
import { webSettingsOf } from "./daemon/webSettingsOf"
import { errorMeta, ExitCode } from "./domain/errors"

const usageError = (message: string): void => {
  process.stderr.write(`pmfx daemon: ${message}\n${DAEMON_USAGE}\n  (pmfx daemon --help describes each option)\n`)
  process.exitCode = ExitCode.usage
}

/** Loads `--config`; its problems are printed and end the program with their exit code (3). */
const loadEcosystem = (file: string) =>
  Effect.gen(function* () {
    const loader = yield* ConfigLoader
    const loaded = yield* loader.loadFile(file, { environment: process.env })
    for (const warning of loaded.warnings) yield* Console.error(`warning ${warning}`)
    // `--config` apps start from the daemon's environment, never with its listener keys.
    return Either.right({ loaded, env: daemonEnvironmentForApps() })
  }).pipe(
    Effect.catchAll((error) =>
      Console.error(`pmfx daemon: ${file} cannot be started\n${renderError(error)}`).pipe(
        Effect.as(Either.left(errorMeta[error._tag].exitCode))
      )
    )
  )

export const main = (args: ReadonlyArray<string>): void => {
  const parsed = parseDaemonArgs(args)
  if (Either.isLeft(parsed)) return usageError(parsed.left)
  const options = parsed.right
  if (options.help) {
    process.stdout.write(`${daemonHelp()}\n`)
    return
  }
  const web = webSettingsOf(options)
  if (Either.isLeft(web)) return usageError(web.left)

  const program = Effect.gen(function* () {
    const ecosystem = options.config === undefined ? undefined : yield* loadEcosystem(options.config)
    if (ecosystem !== undefined && Either.isLeft(ecosystem)) return ecosystem.left
    yield* runDaemon({ web: web.right, ecosystem: ecosystem?.right, listenerLimits: options.listenerLimits })
    return 0
  }).pipe(
    // Expected when several CLIs start a daemon at once: one wins, the others say so and leave.
    Effect.catchTag("DaemonAlreadyRunning", (error: DaemonAlreadyRunning) =>
      Effect.sync(() => {
        process.stderr.write(
          `pmfx daemon: another daemon (pid ${error.pid}) already runs for this PMFX_HOME (${error.file})\n`
        )
        return 1
      })
    ),
    // PMFX_HOME unusable (read-only, a file, under /proc): one line, exit 3 as in the CLI.
    Effect.catchTag("FILE_ERROR", (error) =>
      Effect.sync(() => {
        process.stderr.write(`pmfx daemon: ${renderError(error)}\n`)
        return errorMeta.FILE_ERROR.exitCode
      })
    ),
    Effect.provide(
      Layer.mergeAll(Paths.Default, ConfigLoader.Default, Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
    )
  )
  // Not NodeRuntime.runMain: its SIGTERM handler interrupts the program, which would close the
  // API before the apps are stopped. The daemon handles SIGTERM/SIGINT itself (runDaemon).
  const fiber = Effect.runFork(program)
  // Keeps the event loop alive while the daemon runs, whatever handles it holds.
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1)
  fiber.addObserver((exit) => {
    clearInterval(keepAlive)
    if (Exit.isSuccess(exit)) process.exit(exit.value)
    if (!Cause.isInterruptedOnly(exit.cause)) {
      process.stderr.write(`pmfx daemon: ${Cause.pretty(exit.cause)}\n`)
      process.exit(1)
    }
    process.exit(0)
  })
}

if (require.main === module) main(process.argv.slice(2))
export { daemonArguments } from "./daemon/daemonNodeFlags"
