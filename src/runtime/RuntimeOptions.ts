/**
 * The command line of `pmfx-runtime` (docs/containers.md), parsed without @effect/cli like the
 * daemon's (the runtime's bundle stays small): one target — an ecosystem file or a script — then
 * flags. The listener and limit flags are `pmfx daemon`'s (DaemonOptions.ts, same rules); the
 * start flags of a script map onto ecosystem keys, whose values the file validator checks.
 */
import { Either } from "effect"
import { closestKey } from "../config/closestKey"
import { daemonFlags, parseDaemonArgs, type DaemonOptions } from "../daemon/DaemonOptions"

export const runtimeFlags = {
  json: {
    value: false,
    description: "print each output line as one JSON object (timestamp, app, instance, stream, message)"
  },
  "log-files": {
    value: false,
    description:
      "also write every app's log files under PMFX_HOME/logs (default: only apps whose file names out_file, error_file or log_file)"
  },
  "no-log-files": { value: false, description: "write no log files at all, even for apps that name them" },
  "no-auto-exit": {
    value: false,
    description: "keep running when every app has stopped or errored (the CLI can start them again)"
  }
} as const

/** Start flags for a script, each the ecosystem key of the same meaning (docs/cli.md "pmfx start"). */
export const scriptFlags = {
  name: "name",
  instances: "instances",
  namespace: "namespace",
  interpreter: "interpreter",
  "node-args": "node_args",
  cwd: "cwd",
  "kill-timeout": "kill_timeout",
  "kill-signal": "kill_signal",
  "max-memory-restart": "max_memory_restart",
  "max-restarts": "max_restarts",
  "min-uptime": "min_uptime",
  "restart-delay": "restart_delay",
  output: "out_file",
  error: "error_file",
  log: "log_file"
} as const

const shortFlags: Record<string, string> = { i: "instances", o: "output", e: "error", l: "log" }

export type LogFiles = "named" | "all" | "none"

export interface RuntimeOptions {
  readonly help: boolean
  readonly target: string | undefined
  /** Arguments after `--`, for a script. */
  readonly scriptArgs: ReadonlyArray<string>
  /** Ecosystem keys from the start flags (the typed text; validated with the file's rules). */
  readonly scriptSettings: Readonly<Record<string, string | boolean>>
  readonly json: boolean
  readonly logFiles: LogFiles
  readonly autoExit: boolean
  /** `--web` and the listener limits, as `pmfx daemon` takes them. */
  readonly daemon: DaemonOptions
}

const known = (): Array<string> => [
  ...Object.keys(runtimeFlags),
  ...Object.keys(scriptFlags),
  "no-autorestart",
  ...Object.keys(daemonFlags).filter((name) => name !== "config"),
  "help"
]

const unknownFlag = (name: string): string => {
  const close = closestKey(name, known())
  return `unknown option --${name}${close === undefined ? "" : ` (did you mean --${close}?)`}`
}

export const parseRuntimeArgs = (args: ReadonlyArray<string>): Either.Either<RuntimeOptions, string> => {
  let help = false
  let target: string | undefined
  let scriptArgs: ReadonlyArray<string> = []
  const runtime = new Set<keyof typeof runtimeFlags>()
  const script: Record<string, string | boolean> = {}
  const forDaemon: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      scriptArgs = args.slice(i + 1)
      break
    }
    if (arg === "--help" || arg === "-h") {
      help = true
      continue
    }
    const short = /^-([a-z])$/.exec(arg)
    const long = short !== null ? `--${shortFlags[short[1]!] ?? short[1]}` : arg
    if (!long.startsWith("-")) {
      if (target !== undefined)
        return Either.left(
          `unexpected argument ${JSON.stringify(arg)} (one ecosystem file or script; the script's own arguments go after --)`
        )
      target = arg
      continue
    }
    if (!long.startsWith("--")) return Either.left(unknownFlag(long.replace(/^-+/, "")))
    const eq = long.indexOf("=")
    const name = long.slice(2, eq === -1 ? undefined : eq)
    if (name in runtimeFlags) {
      if (eq !== -1) return Either.left(`--${name} takes no value`)
      runtime.add(name as keyof typeof runtimeFlags)
    } else if (name === "no-autorestart") {
      script.autorestart = false
    } else if (name in scriptFlags) {
      const value = eq !== -1 ? long.slice(eq + 1) : args[++i]
      if (value === undefined || (eq === -1 && value.startsWith("--"))) return Either.left(`--${name} needs a value`)
      script[scriptFlags[name as keyof typeof scriptFlags]] = value
    } else if (name in daemonFlags && name !== "config") {
      forDaemon.push(long)
      const flag = daemonFlags[name as keyof typeof daemonFlags]
      if (flag.value && eq === -1 && i + 1 < args.length) forDaemon.push(args[++i]!)
    } else {
      return Either.left(unknownFlag(name))
    }
  }
  if (runtime.has("log-files") && runtime.has("no-log-files"))
    return Either.left("--log-files and --no-log-files contradict each other: give one")
  const daemon = parseDaemonArgs(forDaemon)
  if (Either.isLeft(daemon)) return Either.left(daemon.left)
  if (!help && target === undefined) return Either.left("give an ecosystem file or a script to run")
  return Either.right({
    help,
    target,
    scriptArgs,
    scriptSettings: script,
    json: runtime.has("json"),
    logFiles: runtime.has("log-files") ? "all" : runtime.has("no-log-files") ? "none" : "named",
    autoExit: !runtime.has("no-auto-exit"),
    daemon: daemon.right
  })
}

export const RUNTIME_USAGE =
  "usage: pmfx-runtime <ecosystem file | script> [--json] [--log-files | --no-log-files] [--no-auto-exit]\n" +
  "                    [--web [--host host] [--port port] [--api-key key] [--read-only-api-key key] [--allow-insecure] [--metrics-public]]\n" +
  "                    [script flags: --name --instances/-i --namespace --interpreter --node-args --cwd --kill-timeout\n" +
  "                     --max-memory-restart --max-restarts --min-uptime --restart-delay --no-autorestart -o -e -l] [-- script args]"

export const runtimeHelp = (): string =>
  [
    RUNTIME_USAGE,
    "",
    "Runs the apps in the foreground, in this one process (the container's PID 1): their output on",
    "stdout/stderr, SIGTERM/SIGINT/SIGQUIT stop them gracefully, and the runtime exits when they have",
    "stopped. Exit codes: 0 stopped as asked (or every app ended cleanly), 1 an app reached errored,",
    "2 bad command line, 3 bad ecosystem file. See docs/containers.md.",
    "",
    ...Object.entries(runtimeFlags).map(([name, flag]) => `  --${name}\n      ${flag.description}`),
    ...Object.entries(daemonFlags)
      .filter(([name]) => name !== "config")
      .map(([name, flag]) => `  --${name}${"pseudo" in flag ? ` <${flag.pseudo}>` : ""}\n      ${flag.description}`),
    ...Object.entries(scriptFlags).map(
      ([name, key]) => `  --${name} <value>\n      the script's ${key} (a script only; a file sets it per app)`
    ),
    "  --no-autorestart\n      the script's autorestart: false"
  ].join("\n")
