/**
 * The `pmfx` executable: parses the command line, runs the command, and turns its outcome into
 * the exit codes of the README's "Exit codes" table. The only place the CLI runs an Effect.
 */
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Logger, LogLevel } from "effect"
import * as path from "node:path"
import packageJson from "../package.json"
import { CallerEnvironment } from "./cli/CallerEnvironment"
import { hoistGlobalOptions } from "./cli/hoistGlobalOptions"
import { pmfx } from "./cli/main"
import { interruptedExitCode } from "./cli/interrupt"
import { CliExit, renderError } from "./cli/output"
import { withPlainConsole } from "./cli/plainConsole"
import { ConfigLoader } from "./config/ConfigLoader"
import { Paths } from "./daemon/Paths"
import { errorMeta, ExitCode, isPmfxError } from "./domain/errors"

const run = Command.run(pmfx, { name: "pmfx", version: packageJson.version })

/**
 * `PMFX_DEBUG=1` shows what the CLI logs at debug level — the full cause of an internal error, an
 * answer from the daemon it could not read — on stderr, where it cannot mix with `--json` output.
 */
const debug = process.env.PMFX_DEBUG !== undefined && process.env.PMFX_DEBUG !== "" && process.env.PMFX_DEBUG !== "0"
const logging = Layer.merge(
  Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })),
  Logger.minimumLogLevel(debug ? LogLevel.Debug : LogLevel.Info)
)

/** The first line of what went wrong, for the one line a user sees. */
const summary = (cause: Cause.Cause<unknown>): string => {
  const defect = Cause.squash(cause)
  const text = defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)
  return text.split("\n")[0]!.slice(0, 300)
}

/**
 * The safety net: a failure or defect no command turned into a structured error (a bug, or a
 * library throwing where nobody expected it) is one line and exit 1 — never a stack trace or a
 * schema dump, which stay behind PMFX_DEBUG=1.
 */
const internalError = (cause: Cause.Cause<unknown>) =>
  Effect.logDebug("internal error", cause).pipe(
    Effect.zipRight(
      Console.error(`pmfx: internal error: ${summary(cause)}${debug ? "" : "; run with PMFX_DEBUG=1 for details"}`)
    ),
    Effect.as(ExitCode.unexpected as number)
  )

const program = run(hoistGlobalOptions(process.argv)).pipe(
  withPlainConsole,
  Effect.as(ExitCode.ok as number),
  Effect.catchAll((error: unknown) => {
    // @effect/cli has already printed what was wrong with the command line.
    if (ValidationError.isValidationError(error)) return Effect.succeed(ExitCode.usage as number)
    if (error instanceof CliExit) return Effect.succeed(error.code)
    if (isPmfxError(error)) return Console.error(renderError(error)).pipe(Effect.as(errorMeta[error._tag].exitCode))
    return internalError(Cause.fail(error))
  }),
  // Ctrl-C and SIGTERM stay interruptions (their exit code is set below); anything else is a defect.
  Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : internalError(cause))),
  // (The daemon client is provided by the command tree, which knows from --url which daemon it is.)
  Effect.provide(Layer.mergeAll(ConfigLoader.Default, CallerEnvironment.live, NodeContext.layer).pipe(Layer.provideMerge(Paths.Default))),
  Effect.provide(logging)
)

const args = process.argv.slice(2)
// (`pmfx daemon restart` is a CLI command: it talks to the daemon rather than being one.)
if (args[0] === "daemon" && args[1] !== "restart" && !args.includes("--help") && !args.includes("-h")) {
  // The daemon runs from its own bundle, loaded only for this command (docs/architecture.md §1: keep server code
  // out of the everyday CLI path), with its own runtime and signal handling.
  const daemon = require(path.join(__dirname, "daemon.cjs")) as { readonly main: (args: ReadonlyArray<string>) => void }
  daemon.main(args.slice(1))
} else {
  NodeRuntime.runMain(program, {
    disableErrorReporting: false,
    // (The program's own logger writes to stderr; see `logging`.)
    disablePrettyLogger: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) && typeof exit.value === "number"
          ? exit.value
          : Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
            ? interruptedExitCode() // Ctrl-C or SIGTERM
            : ExitCode.unexpected
      )
  })
}
