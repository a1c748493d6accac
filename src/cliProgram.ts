/**
 * The CLI program: parses a command line, runs the command, and turns its outcome into the exit
 * codes of the README's "Exit codes" table. The only place the CLI runs an Effect.
 *
 * Evaluating this module reads nothing of the process it runs in (its arguments, environment or
 * standard streams); `runCli` does, when called. So the module can be evaluated ahead of time into
 * the CLI's startup snapshot (src/cliSnapshot.ts, docs/architecture.md §10) as well as at each
 * start (src/bin.ts).
 */
import { Command, ValidationError } from "@effect/cli"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Logger, LogLevel, Random } from "effect"
import packageJson from "../package.json"
import { CallerEnvironment } from "./cli/CallerEnvironment"
import { helpWordAsOption, readCommandLine } from "./cli/help/commandLine"
import { findCommand, programModel, type ProgramModel } from "./cli/help/commandModel"
import { catalogue } from "./cli/help/catalogue"
import { handlerWithRealConsole, withQuietParsing } from "./cli/help/quietParsing"
import { helpWidth, renderCommandHelp, renderRootHelp } from "./cli/help/renderHelp"
import { lineError, usageError } from "./cli/help/usageError"
import { splitStartArgv, StartAppArguments } from "./cli/commands/startFlags"
import { expandAliases } from "./cli/commandAliases"
import { splitRepeatableEquals } from "./cli/repeatedOptionEquals"
import { hoistGlobalOptions } from "./cli/hoistGlobalOptions"
import { commands, pmfx } from "./cli/main"
import { interruptedExitCode } from "./cli/interrupt"
import { CliExit, printJson, renderError } from "./cli/output"
import { withPlainConsole } from "./cli/plainConsole"
import { debugIn } from "./cli/debugIn"
import { colorEnabled } from "./cli/style"
import { ConfigLoader } from "./config/ConfigLoader"
import { useModuleImporter } from "./config/loadModuleConfig"
import { Paths } from "./shared/Paths"
import type { BadRequest } from "./domain/errors"
import { errorMeta, ExitCode, isPmfxError } from "./domain/errors"
import { toWire } from "./domain/ErrorWire"

const run = Command.run(pmfx.pipe(Command.transformHandler(handlerWithRealConsole)), {
  name: "pmfx",
  version: packageJson.version
})

/**
 * `PMFX_DEBUG=1` shows what the CLI logs at debug level — the full cause of an internal error, an
 * answer from the daemon it could not read — on stderr, where it cannot mix with `--json` output.
 */
const logging = (debug: boolean) =>
  Layer.merge(
    // Colours by the stream written to, asked now: Effect's default asks whether stdout was a
    // terminal when its module was evaluated (for a CLI started from its snapshot, at build time).
    Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: colorEnabled(process.stderr) })),
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
const internalError = (debug: boolean) => (cause: Cause.Cause<unknown>) =>
  Effect.logDebug("internal error", cause).pipe(
    Effect.zipRight(
      Console.error(`pmfx: internal error: ${summary(cause)}${debug ? "" : "; run with PMFX_DEBUG=1 for details"}`)
    ),
    Effect.as(ExitCode.unexpected as number)
  )

/** Read only when the help or a usage error needs it (a few milliseconds). */
let model: ProgramModel | undefined
const theModel = (): ProgramModel => (model ??= programModel(pmfx, commands))

/** A bad command line: exit 2, the error as text on stderr or, with --json, as JSON on stdout. */
const reportUsage = (error: BadRequest, json: boolean) =>
  (json ? printJson(toWire(error)) : Console.error(renderError(error))).pipe(Effect.as(ExitCode.usage as number))

/**
 * Runs the command line `commandLine` (shaped like `process.argv`: Node, the script, then the
 * words) and ends the process with its exit code.
 */
export const runCli = (commandLine: ReadonlyArray<string>): void => {
  const debug = debugIn(process.env)
  // ES module ecosystem files are imported by a module Node loads itself (dist/importModule.cjs,
  // next to the bundle), however the CLI started: code evaluated into the startup snapshot has no
  // `import()`, and the launcher's vm loader prints Node 20's "vm.USE_MAIN_CONTEXT_DEFAULT_LOADER
  // is an experimental feature" warning when the bundle compiled without its code cache (any Node
  // flag). `require` is read when a file is imported: the snapshot's is replaced at start.
  useModuleImporter((specifier) =>
    (require("./importModule.cjs") as (specifier: string) => Promise<unknown>)(specifier)
  )
  // PM2's names (ls, ps, jlist, describe) become their commands first (commandAliases.ts).
  const hoisted = hoistGlobalOptions(commandLine)
  // (`pmfx help ls` is `pmfx ls --help`, which is `pmfx list --help`.)
  const argv = splitRepeatableEquals(expandAliases([...hoisted.slice(0, 2), ...helpWordAsOption(hoisted.slice(2))]))
  const words = argv.slice(2)
  const beforeDashes = words.includes("--") ? words.slice(0, words.indexOf("--")) : words

  /**
   * `--help`, `-h`, no command at all, or an option pmfx refuses: answered from the command model
   * without @effect/cli (its help is not readable; docs/decisions.md, "The CLI's help").
   */
  const answeredWithoutParsing = (): Effect.Effect<number> | undefined => {
    // The version and one newline, as `pm2 --version` prints it (@effect/cli's answer adds a blank line).
    if (words.length === 1 && words[0] === "--version")
      return Console.log(packageJson.version).pipe(Effect.as(ExitCode.ok as number))
    const mayBeHelp = beforeDashes.some(
      (word) => word === "-h" || word === "--help" || word === "--wizard" || word === "--completions"
    )
    const noCommand = beforeDashes.every((word) => word.startsWith("-")) && !beforeDashes.includes("--version")
    // An unknown option is refused here too: a command taking several selectors (`pmfx stop a b`)
    // would otherwise read `--jsno` as one more selector.
    const optionLike = beforeDashes.some((word) => word.startsWith("-") && word !== "-" && !/^-\d/.test(word))
    if (!mayBeHelp && !noCommand && !optionLike) return undefined
    const line = readCommandLine(words, theModel())
    const error = lineError(line, theModel())
    if (error !== undefined) return reportUsage(error, line.json)
    if (!line.helpRequested && !noCommand) return undefined
    const width = helpWidth(process.stdout)
    const command = line.command ?? theModel().root
    const text =
      command.path.length === 0
        ? renderRootHelp(theModel(), packageJson.version, width)
        : renderCommandHelp(
            theModel(),
            findCommand(theModel(), command.path) ?? command,
            catalogue[command.path.join(" ")],
            width
          )
    return Console.log(text).pipe(Effect.as(ExitCode.ok as number))
  }

  // `start`'s `--watch [paths]` and `-- <args for the app>` need a look at the words before @effect/cli parses them.
  const startLine = splitStartArgv(argv)

  const parsedAndRun = run(startLine.argv).pipe(
    withQuietParsing,
    withPlainConsole,
    Effect.as(ExitCode.ok as number),
    Effect.catchAll((error: unknown) => {
      if (ValidationError.isValidationError(error)) {
        const line = readCommandLine(words, theModel())
        return reportUsage(usageError(error, line, theModel()), line.json)
      }
      if (error instanceof CliExit) return Effect.succeed(error.code)
      if (isPmfxError(error)) return Console.error(renderError(error)).pipe(Effect.as(errorMeta[error._tag].exitCode))
      return internalError(debug)(Cause.fail(error))
    }),
    // Ctrl-C and SIGTERM stay interruptions (their exit code is set below); anything else is a defect.
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : internalError(debug)(cause)
    )
  )

  const program = Effect.suspend(() => answeredWithoutParsing() ?? parsedAndRun).pipe(
    // (The daemon client is provided by the command tree, which knows from --url which daemon it is.)
    Effect.provide(
      Layer.mergeAll(
        ConfigLoader.Default,
        CallerEnvironment.live,
        Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer),
        Layer.succeed(StartAppArguments, startLine.appArgs)
      ).pipe(Layer.provideMerge(Paths.Default))
    ),
    Effect.provide(logging(debug)),
    // Effect seeds its default Random when its module is evaluated: in the snapshot, once for every
    // command. Seeded now, each command draws its own numbers (a jittered retry, say).
    Effect.withRandom(Random.make(Math.random()))
  )

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
