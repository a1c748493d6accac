/**
 * PM2's `start` flags (docs/cli.md "pmfx start"), each mapped onto the ecosystem-file key with
 * the same meaning. The values are not parsed here: they go into the app's settings as the text
 * the user typed, and the file validator (`ConfigLoader.fromDocument`) checks them, so a bad value
 * gets exactly the code and suggestion the same key gets in a file (`--cron-restart "61 * * * *"`
 * is INVALID_CONFIG, exit 3, like `cron_restart` in a file). The problem is then renamed after
 * the flag, so the message says which flag to fix.
 */
import { Options } from "@effect/cli"
import { Context, Option } from "effect"
import type { ConfigProblem } from "../../domain/errors"
import { InvalidConfig } from "../../domain/errors"

const text = (name: string, pseudo: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudo), Options.withDescription(description), Options.optional)

/** The value given to a bare `--watch` (see `bareWatchFlag`): watch the app's folder. */
const WATCH_ALL = "true"

export const startFlagOptions = {
  watch: text(
    "watch",
    "paths",
    "restart on file changes: bare --watch watches the app's folder; --watch=src,lib watches those paths (watch)"
  ),
  ignoreWatch: Options.text("ignore-watch").pipe(
    Options.withPseudoName("globs"),
    Options.withDescription("paths or globs the watcher ignores, comma- or space-separated, repeatable (ignore_watch)"),
    Options.repeated
  ),
  interpreter: text(
    "interpreter",
    "node|python3|bash|none|path",
    "the program that runs the script; none runs it directly (interpreter)"
  ),
  nodeArgs: text(
    "node-args",
    "args",
    'flags for the interpreter, before the script: "--max-old-space-size=512" (node_args)'
  ),
  maxMemoryRestart: Options.text("max-memory-restart").pipe(
    Options.withAlias("max-memory"),
    Options.withPseudoName("size"),
    Options.withDescription("restart an instance whose memory grows above this size: 512M, 1G (max_memory_restart)"),
    Options.optional
  ),
  noAutorestart: Options.boolean("no-autorestart").pipe(
    Options.withDescription("do not restart the app when it exits (autorestart: false)")
  ),
  cronRestart: Options.text("cron-restart").pipe(
    Options.withAlias("cron"),
    Options.withPseudoName("schedule"),
    Options.withDescription('restart on a cron schedule: "0 3 * * *" (cron_restart)'),
    Options.optional
  ),
  namespace: text("namespace", "name", "the app's namespace, a target for stop/restart/… (namespace)"),
  time: Options.boolean("time").pipe(Options.withDescription("timestamp every log line (time; pmfx does by default)")),
  logDateFormat: text(
    "log-date-format",
    "format",
    'the log lines\' timestamp: "YYYY-MM-DD HH:mm:ss Z", or none (log_date_format)'
  ),
  mergeLogs: Options.boolean("merge-logs").pipe(
    Options.withDescription("all instances write the same log files (merge_logs)")
  ),
  output: Options.text("output").pipe(
    Options.withAlias("o"),
    Options.withAlias("out-file"),
    Options.withPseudoName("file"),
    Options.withDescription("the standard-output log file (out_file)"),
    Options.optional
  ),
  error: Options.text("error").pipe(
    Options.withAlias("e"),
    Options.withAlias("error-file"),
    Options.withPseudoName("file"),
    Options.withDescription("the standard-error log file (error_file)"),
    Options.optional
  ),
  log: Options.text("log").pipe(
    Options.withAlias("l"),
    Options.withAlias("log-file"),
    Options.withPseudoName("file"),
    Options.withDescription("a file receiving both streams combined, beside the out and err logs (log_file)"),
    Options.optional
  ),
  killTimeout: text(
    "kill-timeout",
    "duration",
    "how long a stop waits after its first signal before SIGKILL: 5s, 1600 (ms) (kill_timeout)"
  ),
  killSignal: text(
    "kill-signal",
    "signal",
    "the first signal of a stop, before SIGKILL: SIGINT, SIGUSR2 (kill_signal; default SIGTERM)"
  ),
  restartDelay: text("restart-delay", "duration", "wait this long before restarting a crashed app: 2s (restart_delay)"),
  expBackoffRestartDelay: text(
    "exp-backoff-restart-delay",
    "duration",
    "restart with a delay that doubles from this one: 100ms (exp_backoff_restart_delay)"
  ),
  maxRestarts: text("max-restarts", "n", "unstable restarts in a row before the app is errored (max_restarts)"),
  minUptime: text("min-uptime", "duration", "an exit sooner than this after starting is unstable: 2s (min_uptime)"),
  listenTimeout: text(
    "listen-timeout",
    "duration",
    "how long to wait for the app's 'ready' message (--wait-ready) before it counts as online: 10s, 3000 (ms) (listen_timeout)"
  ),
  shutdownWithMessage: Options.boolean("shutdown-with-message").pipe(
    Options.withDescription("stop the app with the 'shutdown' IPC message instead of a signal (shutdown_with_message)")
  )
}

export type StartFlags = {
  readonly [K in keyof typeof startFlagOptions]: (typeof startFlagOptions)[K] extends Options.Options<infer A>
    ? A
    : never
}

/** One flag given on the command line: its spelling and the settings it stands for. */
interface GivenFlag {
  readonly flag: string
  readonly key: string
  readonly value: unknown
}

/** Splits a list of paths or globs at commas and spaces — but not at the commas of a `{a,b}` brace. */
export const splitPathList = (value: string): Array<string> => {
  const out: Array<string> = []
  let current = ""
  let depth = 0
  for (const c of value) {
    if (c === "{") depth++
    else if (c === "}" && depth > 0) depth--
    if (depth === 0 && (c === "," || /\s/.test(c))) {
      if (current !== "") out.push(current)
      current = ""
    } else current += c
  }
  if (current !== "") out.push(current)
  return out
}

const watchValue = (value: string): unknown => {
  const lower = value.trim().toLowerCase()
  return lower === "true" || lower === "false" ? lower === "true" : splitPathList(value)
}

/** The flags the user gave, with the ecosystem-file key and value each stands for. */
export const givenFlags = (o: StartFlags): ReadonlyArray<GivenFlag> => {
  const flags: Array<GivenFlag> = []
  const add = <A>(flag: string, key: string, value: Option.Option<A>, map: (a: A) => unknown = (a) => a) => {
    if (Option.isSome(value)) flags.push({ flag, key, value: map(value.value) })
  }
  add("--watch", "watch", o.watch, watchValue)
  if (o.ignoreWatch.length > 0)
    flags.push({ flag: "--ignore-watch", key: "ignore_watch", value: o.ignoreWatch.flatMap(splitPathList) })
  add("--interpreter", "interpreter", o.interpreter)
  add("--node-args", "node_args", o.nodeArgs)
  add("--max-memory-restart", "max_memory_restart", o.maxMemoryRestart)
  if (o.noAutorestart) flags.push({ flag: "--no-autorestart", key: "autorestart", value: false })
  add("--cron-restart", "cron_restart", o.cronRestart)
  add("--namespace", "namespace", o.namespace)
  if (o.time) flags.push({ flag: "--time", key: "time", value: true })
  add("--log-date-format", "log_date_format", o.logDateFormat)
  if (o.mergeLogs) flags.push({ flag: "--merge-logs", key: "merge_logs", value: true })
  add("--output", "out_file", o.output)
  add("--error", "error_file", o.error)
  add("--log", "log_file", o.log)
  add("--kill-timeout", "kill_timeout", o.killTimeout)
  add("--kill-signal", "kill_signal", o.killSignal)
  add("--restart-delay", "restart_delay", o.restartDelay)
  add("--exp-backoff-restart-delay", "exp_backoff_restart_delay", o.expBackoffRestartDelay)
  add("--max-restarts", "max_restarts", o.maxRestarts)
  add("--min-uptime", "min_uptime", o.minUptime)
  add("--listen-timeout", "listen_timeout", o.listenTimeout)
  if (o.shutdownWithMessage) flags.push({ flag: "--shutdown-with-message", key: "shutdown_with_message", value: true })
  return flags
}

/** The settings of one app (the `apps[0]` of a document) the flags stand for. */
export const flagSettings = (flags: ReadonlyArray<GivenFlag>): Record<string, unknown> =>
  Object.fromEntries(flags.map((f) => [f.key, f.value]))

/**
 * The validator's error with each problem of a flag's key renamed after the flag
 * (`apps[0].cron_restart` → `--cron-restart`); code, value and suggestion stay the file's.
 */
export const namedAfterFlags = (
  error: InvalidConfig,
  flags: ReadonlyArray<{ readonly flag: string; readonly key: string }>
): InvalidConfig => {
  const problems = error.details.problems ?? []
  if (problems.length === 0) return error
  const rename = (problem: ConfigProblem): ConfigProblem => {
    const match = /^apps\[0\]\.([A-Za-z_]+)(.*)$/.exec(problem.field)
    const flag = match === null ? undefined : flags.find((f) => f.key === match[1])
    return flag === undefined ? problem : { ...problem, field: `${flag.flag}${match![2]}` }
  }
  return InvalidConfig.fromProblems(problems.map(rename), error.details.file)
}

/** Where `start` is in `argv` (after node, the script and the global options), or -1 for another command. */
const commandIndex = (argv: ReadonlyArray<string>): number => {
  let index = 2
  while (index < argv.length && argv[index]!.startsWith("-")) index += argv[index]!.includes("=") ? 1 : 2
  return argv[index] === "start" ? index : -1
}

/** Options of `start` that take no value (the rest take the next word). */
const START_SWITCHES = new Set([
  "--wait-ready",
  "--json",
  "--no-autorestart",
  "--time",
  "--merge-logs",
  "--shutdown-with-message",
  "-h",
  "--help"
])

/**
 * PM2's `--watch [paths]` has an optional value, which @effect/cli options cannot have: before
 * parsing, a bare `--watch` becomes `--watch=true`, and `--watch <paths>` becomes
 * `--watch=<paths>` when the word after it can only be the paths — the command was already given
 * before it, and the word is not an option. (`pmfx start --watch app.js` watches the folder and
 * starts app.js, as a user means it.) Nothing after `--` is touched.
 */
export const bareWatchFlag = (argv: ReadonlyArray<string>): Array<string> => {
  const start = commandIndex(argv)
  if (start === -1) return [...argv]
  const out = argv.slice(0, start + 1)
  let positionals = 0
  for (let i = start + 1; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      out.push(...argv.slice(i))
      break
    }
    if (arg === "--watch") {
      const next = argv[i + 1]
      if (positionals > 0 && next !== undefined && !next.startsWith("-")) {
        out.push(`--watch=${next}`)
        i++
      } else out.push(`--watch=${WATCH_ALL}`)
      continue
    }
    out.push(arg)
    if (!arg.startsWith("-")) positionals++
    else if (!arg.includes("=") && !START_SWITCHES.has(arg) && i + 1 < argv.length) out.push(argv[++i]!)
  }
  return out
}

/**
 * The words after `--` on a `start` command line: the app's own arguments
 * (`pmfx start app.js -- --port 4000`). They are taken out before @effect/cli parses the rest —
 * it would read them as more positional arguments, and then a mistyped option (`--wach`) would
 * silently become an argument of the app instead of exit 2.
 */
export class StartAppArguments extends Context.Tag("pmfx/StartAppArguments")<
  StartAppArguments,
  ReadonlyArray<string>
>() {}

/** `argv` ready for @effect/cli: `--watch` given its value (see `bareWatchFlag`), and the app's arguments after `--` taken out. */
export const splitStartArgv = (
  argv: ReadonlyArray<string>
): { readonly argv: Array<string>; readonly appArgs: ReadonlyArray<string> } => {
  const normalized = bareWatchFlag(argv)
  if (commandIndex(normalized) === -1) return { argv: normalized, appArgs: [] }
  const dashes = normalized.indexOf("--")
  return dashes === -1
    ? { argv: normalized, appArgs: [] }
    : { argv: normalized.slice(0, dashes), appArgs: normalized.slice(dashes + 1) }
}
