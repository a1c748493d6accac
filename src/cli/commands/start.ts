/**
 * `pmfx start <command|script|file>` (README "The CLI", docs/architecture.md §4, §6, §10).
 *
 * - An ecosystem file (the argument, or `--config <file>`) is applied in one request by
 *   `applyFile.ts` (docs/cli.md, "Applying a file"): apps not running start with the file's
 *   definition, running ones are reported unchanged or changed; `--only` (or `--name`) narrows it.
 * - Anything else is one app built from the options: the command is split like a shell would
 *   (`"node server.js --x"` → `node` with `server.js --x`; a path that names a file is one script
 *   even with spaces in it), relative paths resolve against the caller's folder, and a name that
 *   is taken is PROCESS_ALREADY_EXISTS.
 *
 * The CLI resolves the definitions itself and sends them with its own environment, so an app
 * started from a shell sees that shell's variables. `--config` belongs to `start` itself:
 * @effect/cli has no options shared across subcommands.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_READY_TIMEOUT_MS } from "../../shared/ApiSchemas"
import { ConfigLoader } from "../../config/ConfigLoader"
import { looksLikeEcosystemFile } from "../../config/ConfigFormat"
import { runsOnNode } from "../../config/validateEcosystem"
import type { AppDefinition } from "../../domain/AppDefinition"
import { formatDuration, parseDuration } from "../../domain/Duration"
import { ProcessNotFound, ReadyTimeout } from "../../domain/errors"
import { parsePort } from "../../domain/Port"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { splitShellWords } from "../../domain/shellWords"
import { CallerEnvironment } from "../CallerEnvironment"
import { commandAppName } from "../commandAppName"
import { tryDaemon, withDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { reportReadyTimeout } from "../readyTimeout"
import { withSpinner } from "../spinner"
import { style } from "../style"
import { badUsage, optionValue } from "../usage"
import { plural } from "./actionOptions"
import { applyFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { jsonOption } from "./configOptions"
import { flagSettings, givenFlags, namedAfterFlags, StartAppArguments, startFlagOptions } from "./startFlags"
import { actOnEach, mergeRows, reportOutcome } from "./selectors"

// ---------------------------------------------------------------------------------------------
// Option values

const ENV_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/
const ENV_BLOCK = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** One `--env`: a variable to set, or the `env_<name>` block of an ecosystem file to select. */
type EnvEntry =
  | { readonly _tag: "Set"; readonly key: string; readonly value: string }
  | { readonly _tag: "Block"; readonly name: string }

const parseEnvEntry = (text: string): Either.Either<EnvEntry, string> => {
  const eq = text.indexOf("=")
  if (eq >= 0) {
    const key = text.slice(0, eq)
    return ENV_VARIABLE.test(key)
      ? Either.right({ _tag: "Set", key, value: text.slice(eq + 1) })
      : Either.left(`${JSON.stringify(key)} is not a variable name (letters, digits and _, not starting with a digit)`)
  }
  return ENV_BLOCK.test(text)
    ? Either.right({ _tag: "Block", name: text })
    : Either.left(`${JSON.stringify(text)} is neither KEY=VALUE nor the name of an env_<name> block`)
}

const parseHealthUrl = (text: string): Either.Either<string, string> => {
  try {
    const url = new URL(text.replaceAll("{port}", "80"))
    return url.protocol === "http:" || url.protocol === "https:"
      ? Either.right(text)
      : Either.left(`${JSON.stringify(text)} is not an http or https URL`)
  } catch {
    return Either.left(`${JSON.stringify(text)} is not a URL`)
  }
}

const text = (name: string, pseudo: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudo), Options.withDescription(description), Options.optional)

const options = {
  name: Options.text("name").pipe(
    Options.withPseudoName("name"),
    Options.withAlias("n"),
    Options.withDescription(
      "the app's name (default: from the script); with an ecosystem file, start only the app of that name"
    ),
    Options.optional
  ),
  config: text(
    "config",
    "file",
    "an ecosystem file to start (the same as giving it as the argument); --name narrows it to one app"
  ),
  // (Checked by the file validator with the other app settings, as in a file: exit 3.)
  port: text(
    "port",
    "port",
    "a port (3000), a range (3000-3003, instance i gets 3000+i) or auto:5000-5100; given to the app as PORT"
  ),
  instances: Options.text("instances").pipe(
    Options.withPseudoName("n|max"),
    Options.withAlias("i"),
    Options.withDescription(
      'how many instances: a whole number, "max" (one per CPU), 0 (one per CPU) or -1 (one per CPU but one)'
    ),
    Options.optional
  ),
  execMode: Options.choice("exec-mode", ["fork", "cluster"]).pipe(
    Options.withDescription(
      "cluster: the instances are workers of one Node cluster primary sharing one port (the default with -i for a .js/.mjs/.cjs script, as in PM2, unless --port gives a range); fork: each instance is its own process"
    ),
    Options.optional
  ),
  env: Options.text("env").pipe(
    Options.withPseudoName("KEY=VALUE|NAME"),
    Options.withDescription(
      "KEY=VALUE sets a variable (repeatable); a bare NAME selects the env_NAME block of an ecosystem file"
    ),
    Options.repeated,
    // (@effect/cli repeats only plain options, so the values are checked as a list.)
    Options.mapEffect(
      optionValue(
        "--env",
        (texts: ReadonlyArray<string>) => Either.all(texts.map(parseEnvEntry)),
        "write --env KEY=VALUE, or --env production to select env_production"
      )
    )
  ),
  healthCheckUrl: Options.text("health-check-url").pipe(
    Options.withPseudoName("url"),
    Options.withDescription("check the app over HTTP at this URL ({port} stands for the instance's port)"),
    Options.mapEffect(
      optionValue("--health-check-url", parseHealthUrl, "write a URL like http://127.0.0.1:{port}/health")
    ),
    Options.optional
  ),
  healthCheckScript: text(
    "health-check-script",
    "script",
    "check the app by running this script (healthy when it exits 0)"
  ),
  waitReady: Options.boolean("wait-ready").pipe(
    Options.withDescription("wait until every instance is online (and healthy, with a health check) before returning")
  ),
  waitTimeout: Options.text("wait-timeout").pipe(
    Options.withPseudoName("duration"),
    Options.withDescription("how long --wait-ready waits, at most 10m (a bare number is seconds)"),
    Options.withDefault("60s"),
    // The daemon waits at most MAX_READY_TIMEOUT_MS; refused here, before any app starts.
    Options.mapEffect(
      optionValue(
        "--wait-timeout",
        (t) =>
          Either.flatMap(parseDuration(t, "s"), (ms) =>
            ms > MAX_READY_TIMEOUT_MS
              ? Either.left(`${JSON.stringify(t)} is longer than ${formatDuration(MAX_READY_TIMEOUT_MS)}`)
              : Either.right(ms)
          ),
        `write a duration like 30s, 2m or 500ms, at most ${formatDuration(MAX_READY_TIMEOUT_MS)}`
      )
    )
  ),
  pidFile: text("pid-file", "file", "the pid file"),
  user: text("user", "user", "run as this user (the daemon must run as root)"),
  group: text("group", "group", "run with this group (the daemon must run as root)"),
  cwd: text("cwd", "dir", "the app's working folder (default: the current folder)"),
  envFile: text("env-file", "file", "a file of KEY=value lines for the app's environment"),
  ...startFlagOptions,
  only: onlyOption,
  updateEnv: updateEnvOption,
  json: jsonOption
}

type StartOptions = {
  readonly [K in keyof typeof options]: (typeof options)[K] extends Options.Options<infer A> ? A : never
}

// ---------------------------------------------------------------------------------------------
// Definitions

const isFile = (file: string): boolean => {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * Values from the command line are literal: the shell has already expanded what it wanted to, so
 * every `$` is escaped before the loader's `${VAR}` substitution (which turns `$$` back into `$`).
 */
const literal = (value: unknown): unknown =>
  typeof value === "string"
    ? value.replace(/\$/g, "$$$$")
    : Array.isArray(value)
      ? value.map(literal)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]))
        : value

/** Options that describe one app; with an ecosystem file they belong in the file instead. */
const appOptions = (o: StartOptions): ReadonlyArray<string> =>
  [
    ["--port", o.port],
    ["--instances", o.instances],
    ["--exec-mode", o.execMode],
    ["--health-check-url", o.healthCheckUrl],
    ["--health-check-script", o.healthCheckScript],
    ["--pid-file", o.pidFile],
    ["--user", o.user],
    ["--group", o.group],
    ["--cwd", o.cwd],
    ["--env-file", o.envFile]
  ]
    .flatMap(([flag, value]) => (Option.isSome(value as Option.Option<unknown>) ? [flag as string] : []))
    .concat(givenFlags(o).map((given) => given.flag))

interface Plan {
  readonly definitions: ReadonlyArray<AppDefinition>
  /** Apps the daemon holds already, named by the argument (`pmfx start api`, `all`, an id or a namespace, as with PM2). */
  readonly existing?: { readonly target: string; readonly rows: ReadonlyArray<ProcessSummary> }
}

/**
 * The argument as a target in the daemon's table — `all`, an app name, an id or a namespace, as
 * `stop` takes it — when it can only mean that: one word and no option that describes a new app.
 * It wins over a file of that name, as in PM2 (docs/decisions.md, "`pmfx start all`"): taken as a
 * command, the name would only meet PROCESS_ALREADY_EXISTS. Returns the rows it names.
 */
const existingApp = (target: string, o: StartOptions, hasVariables: boolean, appArgs: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const word = target.trim()
    if (
      /\s/.test(word) ||
      word === "" ||
      hasVariables ||
      appArgs.length > 0 ||
      appOptions(o).length > 0 ||
      Option.isSome(o.name)
    )
      return null
    const rows = yield* withDaemon(o.json, (api) => api.processes.list({ urlParams: {} }))
    const named = /^\d+$/.test(word)
      ? rows.filter((row) => String(row.id) === word)
      : word === "all"
        ? rows
        : rows.some((row) => row.name === word)
          ? rows.filter((row) => row.name === word)
          : rows.filter((row) => row.namespace === word)
    if (named.length > 0) return { target: word, rows: named }
    // "all" is never a program to run: with no app there is nothing to start.
    if (word === "all") {
      return yield* failWith(
        new ProcessNotFound({
          message: "no app is defined yet, so `all` names nothing to start",
          details: {
            process_id: "all",
            suggestion: 'start an app first: pmfx start "node server.js" or pmfx start ecosystem.config.js'
          }
        }),
        o.json
      )
    }
    return null
  })

/** An ecosystem file, applied in one request (applyFile.ts); `--name` narrows it like `--only`. */
const startFile = (file: string, o: StartOptions, variables: Record<string, string>, blocks: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const extra = appOptions(o)
    if (extra.length > 0) {
      return yield* failWith(
        badUsage(
          extra[0]!,
          `describes an app given as a command; it does not apply to an ecosystem file`,
          `write the setting in the app's entry of ${path.basename(file)}, or start a command instead`
        ),
        o.json
      )
    }
    if (blocks.length > 1) {
      return yield* failWith(
        badUsage(
          "--env",
          `selects one env_<name> block; got ${blocks.join(", ")}`,
          "give one --env NAME (variables go as --env KEY=VALUE)"
        ),
        o.json
      )
    }
    const only = [...onlyNames(o.only), ...(Option.isSome(o.name) ? [o.name.value] : [])]
    return yield* applyFile({
      file,
      mode: "start",
      only,
      envBlock: blocks[0],
      variables,
      updateEnv: o.updateEnv,
      json: o.json,
      waitReadyMs: o.waitReady ? o.waitTimeout : undefined
    })
  })

const fromCommand = (
  command: string,
  appArgs: ReadonlyArray<string>,
  o: StartOptions,
  variables: Record<string, string>,
  blocks: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    if (blocks.length > 0) {
      return yield* failWith(
        badUsage(
          "--env",
          `${JSON.stringify(blocks[0])} selects an env_${blocks[0]} block, which only an ecosystem file has`,
          `to set a variable write --env ${blocks[0]}=value`
        ),
        o.json
      )
    }
    if (Option.isSome(o.healthCheckUrl) && Option.isSome(o.healthCheckScript)) {
      return yield* failWith(
        badUsage(
          "--health-check-url",
          "cannot be combined with --health-check-script",
          "choose one kind of health check"
        ),
        o.json
      )
    }
    const caller = yield* CallerEnvironment
    const split = isFile(path.resolve(caller.cwd, command)) ? Either.right([command]) : splitShellWords(command)
    if (Either.isLeft(split)) {
      return yield* failWith(
        badUsage(
          "command",
          `cannot split ${JSON.stringify(command)}: ${split.left}`,
          `close the quote, or quote the whole command once: pmfx start "node server.js --flag"`
        ),
        o.json
      )
    }
    // `pmfx start app.js -- a b c`: the words after `--` are the app's own arguments.
    const [script, ...args] = [...split.right, ...appArgs]
    if (script === undefined) {
      return yield* failWith(
        badUsage("command", "is empty", 'give a script or a command, like pmfx start "node server.js"'),
        o.json
      )
    }
    const name = Option.getOrElse(o.name, () => commandAppName(script, args))
    const settings: Record<string, unknown> = { name, script, args }
    const set = <A>(key: string, value: Option.Option<A>) => {
      if (Option.isSome(value)) settings[key] = value.value
    }
    set("instances", o.instances)
    set("port", o.port)
    // PM2's rule: -i with a Node script means cluster mode — unless a port range gives each
    // instance its own port (docs/configuration.md, "exec_mode").
    const portRange = Option.isSome(o.port) && Either.getOrUndefined(parsePort(o.port.value))?._tag !== "Single"
    const clusterByDefault =
      Option.isSome(o.instances) && runsOnNode(script, Option.getOrUndefined(o.interpreter)) && !portRange
    const execMode = Option.getOrElse(o.execMode, () => (clusterByDefault ? "cluster" : undefined))
    if (execMode !== undefined) settings.exec_mode = execMode
    if (Object.keys(variables).length > 0) settings.env = variables
    set("env_file", o.envFile)
    set("cwd", o.cwd)
    set("user", o.user)
    set("group", o.group)
    set("pid_file", o.pidFile)
    if (Option.isSome(o.healthCheckUrl)) settings.health_check = { check_type: "http", url: o.healthCheckUrl.value }
    if (Option.isSome(o.healthCheckScript))
      settings.health_check = { check_type: "script", script: o.healthCheckScript.value }
    // PM2's flags, each as its file key, checked by the file validator (startFlags.ts).
    const flags = givenFlags(o)
    Object.assign(settings, flagSettings(flags))
    const named = [
      ...flags,
      { flag: "--port", key: "port" },
      { flag: "--instances", key: "instances" },
      { flag: "--name", key: "name" }
    ]
    const loader = yield* ConfigLoader
    const loaded = yield* loader
      .fromDocument({ apps: [literal(settings)] }, caller.cwd, { environment: caller.env })
      .pipe(Effect.catchAll((error) => failWith(namedAfterFlags(error, named), o.json)))
    return { definitions: loaded.apps } satisfies Plan
  })

// ---------------------------------------------------------------------------------------------
// The command

/** Several words: names, ids or namespaces of apps the daemon holds (a command is one quoted word). */
const startSeveral = (targets: ReadonlyArray<string>, withOptions: boolean, json: boolean) =>
  Effect.gen(function* () {
    const odd = targets.find((t) => /\s/.test(t.trim()) || looksLikeEcosystemFile(t))
    if (withOptions || odd !== undefined) {
      return yield* failWith(
        badUsage(
          "command",
          odd !== undefined
            ? `${JSON.stringify(odd)} is a command or a file, and start takes one of those at a time`
            : "several words name apps the daemon holds; options that describe an app go with one command",
          'quote a command as one word (pmfx start "node server.js --port 3000"), start one file at a time, or name existing apps alone: pmfx start api worker'
        ),
        json
      )
    }
    const outcome = yield* actOnEach(targets, (target) =>
      tryDaemon(json, (api) => api.processes.start({ path: { id: target } }), { selector: target })
    )
    yield* reportOutcome(outcome, {
      json,
      verb: "started",
      doneJson: (results) => byId(mergeRows(results.map((r) => r.processes))),
      printDone: (results) => {
        const rows = byId(mergeRows(results.map((r) => r.processes)))
        return json
          ? printJson(rows)
          : Console.log(
              `${style.green(process.stdout)("started")} ${plural(rows.length, "process", "processes")}\n${renderProcessTable(rows)}`
            )
      }
    })
  })

const byId = (rows: ReadonlyArray<ProcessSummary>) => [...rows].sort((a, b) => a.id - b.id)

export const startCommand = Command.make(
  "start",
  {
    targets: Args.text({ name: "command|script|file" }).pipe(
      Args.withDescription(
        'a command ("node server.js --x"), a script, or an ecosystem file; or the names of apps the daemon holds (several: pmfx start api worker)'
      ),
      Args.repeated
    ),
    ...options
  },
  ({ targets, ...o }) =>
    Effect.gen(function* () {
      // `pmfx start api worker`: apps the daemon holds, each started in turn (selectors.ts).
      if (targets.length > 1) {
        const refused =
          appOptions(o).length > 0 ||
          Option.isSome(o.name) ||
          o.env.length > 0 ||
          Option.isSome(o.config) ||
          o.waitReady ||
          (yield* StartAppArguments).length > 0
        return yield* startSeveral(targets, refused, o.json)
      }
      const target = Option.fromNullable(targets[0])
      const caller = yield* CallerEnvironment
      const appArgs = yield* StartAppArguments
      const entries = o.env
      const variables = Object.fromEntries(entries.flatMap((e) => (e._tag === "Set" ? [[e.key, e.value]] : [])))
      const blocks = entries.flatMap((e) => (e._tag === "Block" ? [e.name] : []))

      if (Option.isSome(target) && Option.isSome(o.config)) {
        return yield* failWith(
          badUsage(
            "--config",
            "cannot be combined with a command or file argument",
            "give either the argument or --config <file> (and --name to pick one app)"
          ),
          o.json
        )
      }
      if (
        appArgs.length > 0 &&
        (Option.isSome(o.config) || (Option.isSome(target) && looksLikeEcosystemFile(target.value)))
      ) {
        return yield* failWith(
          badUsage(
            "args",
            "are arguments for a command's app; an ecosystem file has none",
            "write them as `args` in the app's entry of the file"
          ),
          o.json
        )
      }
      if (Option.isSome(o.config)) return yield* startFile(o.config.value, o, variables, blocks)
      if (Option.isNone(target)) {
        return yield* failWith(
          badUsage(
            "command",
            "is missing",
            'give a command, a script or an ecosystem file: pmfx start "node server.js", pmfx start ecosystem.json'
          ),
          o.json
        )
      }
      if (looksLikeEcosystemFile(target.value) && !/\s/.test(target.value.trim()))
        return yield* startFile(target.value, o, variables, blocks)
      if (Option.isSome(o.only))
        return yield* failWith(
          badUsage(
            "--only",
            "narrows an ecosystem file; a command is one app",
            "give an ecosystem file, or leave --only out"
          ),
          o.json
        )
      if (o.updateEnv) {
        return yield* failWith(
          badUsage(
            "--update-env",
            "refreshes the environment of apps that exist",
            `use \`pmfx restart <app> --update-env\`, or give an ecosystem file`
          ),
          o.json
        )
      }
      const plan: Plan = yield* Effect.flatMap(existingApp(target.value, o, entries.length > 0, appArgs), (existing) =>
        existing !== null
          ? Effect.succeed<Plan>({ definitions: [], existing })
          : fromCommand(target.value, appArgs, o, variables, blocks)
      )

      // The app gets the CLI's own environment (docs/architecture.md §4), under its env_file and env.
      const env = environmentForApps(caller.env, yield* DaemonTarget)
      const names =
        plan.existing !== undefined
          ? [...new Set(plan.existing.rows.map((row) => row.name))]
          : plan.definitions.map((app) => app.name)

      const outcome = yield* withDaemon(o.json, (api) =>
        Effect.gen(function* () {
          // Already running answers PROCESS_ALREADY_RUNNING (exit 5).
          const rows =
            plan.existing !== undefined
              ? (yield* api.processes.start({ path: { id: plan.existing.target } })).processes
              : (yield* api.processes.create({ payload: { definitions: plan.definitions, env } })).processes
          // Of a target's apps, those that ran already (every row live) were not started now.
          const running = new Set<string>()
          if (plan.existing !== undefined) {
            for (const name of names) {
              if (
                plan.existing.rows
                  .filter((row) => row.name === name)
                  .every((row) => row.status === "online" || row.status === "starting")
              )
                running.add(name)
            }
          }
          // A new app with autostart: false is registered stopped: neither started nor waited for.
          const registered = plan.definitions.filter((app) => !app.autostart).map((app) => app.name)
          const startedApps = names.length - running.size - registered.length
          if (!o.waitReady) return { rows, startedApps, registered }
          const timeout = `${o.waitTimeout}ms`
          const ready = yield* withSpinner(
            `waiting for ${names.join(", ")} to be ready (up to ${formatDuration(o.waitTimeout)})`,
            Effect.forEach(
              names.filter((name) => !registered.includes(name)),
              (name) => api.processes.ready({ path: { id: name }, urlParams: { timeout } }),
              { concurrency: "unbounded" }
            )
          ).pipe(Effect.either)
          // A timeout is reported below, with the state each instance was left in.
          if (Either.isLeft(ready) && ready.left._tag === "READY_TIMEOUT") return ready.left
          return { rows: (yield* ready).flat(), startedApps, registered }
        })
      )
      if (outcome instanceof ReadyTimeout) return yield* reportReadyTimeout(outcome, o.json)

      const rows = byId(outcome.rows)
      if (o.json) return yield* printJson(rows)
      const lines: Array<string> = []
      if (outcome.startedApps > 0)
        lines.push(
          `${style.green(process.stdout)("started")} ${plural(outcome.startedApps, "app")}${o.waitReady ? ", all ready" : ""}`
        )
      if (outcome.registered.length > 0) {
        lines.push(
          `${style.dim(process.stdout)("registered stopped")} ${outcome.registered.join(", ")} (autostart: false; \`pmfx start <name>\` runs it)`
        )
      }
      lines.push(renderProcessTable(rows))
      yield* Console.log(lines.join("\n"))
    })
).pipe(
  Command.withDescription(
    "Start a command, a script, or the apps of an ecosystem file (--config <file> works as the argument does); words after -- are the app's arguments"
  )
)
