/**
 * `pmfx start <command|script|file>` (README "The CLI", docs/architecture.md §4, §6, §10).
 *
 * - An ecosystem file (the argument, or `--config <file>`) is loaded with the caller's environment
 *   (and `--env <name>` to select `env_<name>` blocks), optionally narrowed to one app by `--name`.
 *   Its apps that do not exist yet are created; those that exist are started with their saved
 *   definition (already running ones are reported; PROCESS_ALREADY_RUNNING only when nothing at
 *   all was started).
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
import { MAX_BODY_BYTES, MAX_READY_TIMEOUT_MS } from "../../api/ApiSchemas"
import { ConfigLoader } from "../../config/ConfigLoader"
import { looksLikeEcosystemFile } from "../../config/ConfigFormat"
import { closestKey } from "../../config/closestKey"
import { runsOnNode } from "../../config/validateEcosystem"
import type { AlertRules, AppDefinition, Webhook } from "../../domain/AppDefinition"
import { formatDuration, parseDuration } from "../../domain/Duration"
import { errorMeta, ProcessAlreadyRunning, ProcessNotFound, ReadyTimeout } from "../../domain/errors"
import { parsePort } from "../../domain/Port"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { splitShellWords } from "../../domain/shellWords"
import { CallerEnvironment } from "../CallerEnvironment"
import { commandAppName } from "../commandAppName"
import { withDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { CliExit, failWith, printJson, renderError } from "../output"
import { renderProcessTable } from "../processTable"
import { withSpinner } from "../spinner"
import { style } from "../style"
import { badUsage, optionValue } from "../usage"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { flagSettings, givenFlags, namedAfterFlags, StartAppArguments, startFlagOptions } from "./startFlags"

// ---------------------------------------------------------------------------------------------
// Option values

const ENV_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/
const ENV_BLOCK = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** One `--env`: a variable to set, or the `env_<name>` block of an ecosystem file to select. */
type EnvEntry = { readonly _tag: "Set"; readonly key: string; readonly value: string } | { readonly _tag: "Block"; readonly name: string }

const parseEnvEntry = (text: string): Either.Either<EnvEntry, string> => {
  const eq = text.indexOf("=")
  if (eq >= 0) {
    const key = text.slice(0, eq)
    return ENV_VARIABLE.test(key)
      ? Either.right({ _tag: "Set", key, value: text.slice(eq + 1) })
      : Either.left(`${JSON.stringify(key)} is not a variable name (letters, digits and _, not starting with a digit)`)
  }
  return ENV_BLOCK.test(text) ? Either.right({ _tag: "Block", name: text }) : Either.left(`${JSON.stringify(text)} is neither KEY=VALUE nor the name of an env_<name> block`)
}

const parseHealthUrl = (text: string): Either.Either<string, string> => {
  try {
    const url = new URL(text.replaceAll("{port}", "80"))
    return url.protocol === "http:" || url.protocol === "https:" ? Either.right(text) : Either.left(`${JSON.stringify(text)} is not an http or https URL`)
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
    Options.withDescription("the app's name (default: from the script); with an ecosystem file, start only the app of that name"),
    Options.optional
  ),
  config: text("config", "file", "an ecosystem file to start (the same as giving it as the argument); --name narrows it to one app"),
  // (Checked by the file validator with the other app settings, as in a file: exit 3.)
  port: text("port", "port", "a port (3000), a range (3000-3003, instance i gets 3000+i) or auto:5000-5100; given to the app as PORT"),
  instances: Options.text("instances").pipe(
    Options.withPseudoName("n|max"),
    Options.withAlias("i"),
    Options.withDescription('how many instances: a whole number, "max" (one per CPU), 0 (one per CPU) or -1 (one per CPU but one)'),
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
    Options.withDescription("KEY=VALUE sets a variable (repeatable); a bare NAME selects the env_NAME block of an ecosystem file"),
    Options.repeated,
    // (@effect/cli repeats only plain options, so the values are checked as a list.)
    Options.mapEffect(optionValue("--env", (texts: ReadonlyArray<string>) => Either.all(texts.map(parseEnvEntry)), "write --env KEY=VALUE, or --env production to select env_production"))
  ),
  healthCheckUrl: Options.text("health-check-url").pipe(
    Options.withPseudoName("url"),
    Options.withDescription("check the app over HTTP at this URL ({port} stands for the instance's port)"),
    Options.mapEffect(optionValue("--health-check-url", parseHealthUrl, "write a URL like http://127.0.0.1:{port}/health")),
    Options.optional
  ),
  healthCheckScript: text("health-check-script", "script", "check the app by running this script (healthy when it exits 0)"),
  waitReady: Options.boolean("wait-ready").pipe(Options.withDescription("wait until every instance is online (and healthy, with a health check) before returning")),
  waitTimeout: Options.text("wait-timeout").pipe(
    Options.withPseudoName("duration"),
    Options.withDescription("how long --wait-ready waits, at most 10m (a bare number is seconds)"),
    Options.withDefault("60s"),
    // The daemon waits at most MAX_READY_TIMEOUT_MS; refused here, before any app starts.
    Options.mapEffect(
      optionValue(
        "--wait-timeout",
        (t) => Either.flatMap(parseDuration(t, "s"), (ms) => (ms > MAX_READY_TIMEOUT_MS ? Either.left(`${JSON.stringify(t)} is longer than ${formatDuration(MAX_READY_TIMEOUT_MS)}`) : Either.right(ms))),
        `write a duration like 30s, 2m or 500ms, at most ${formatDuration(MAX_READY_TIMEOUT_MS)}`
      )
    ),
  ),
  pidFile: text("pid-file", "file", "the pid file"),
  user: text("user", "user", "run as this user (the daemon must run as root)"),
  group: text("group", "group", "run with this group (the daemon must run as root)"),
  cwd: text("cwd", "dir", "the app's working folder (default: the current folder)"),
  envFile: text("env-file", "file", "a file of KEY=value lines for the app's environment"),
  ...startFlagOptions,
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
  /** The file the apps came from, or null for a command. */
  readonly file: string | null
  readonly definitions: ReadonlyArray<AppDefinition>
  /** The file's top-level `webhooks` and `alerts`, sent along with the new apps (docs/architecture.md §9). */
  readonly notifications?: { readonly webhooks: ReadonlyArray<Webhook>; readonly alerts: AlertRules | null }
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
    if (/\s/.test(word) || word === "" || hasVariables || appArgs.length > 0 || appOptions(o).length > 0 || Option.isSome(o.name)) return null
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
        new ProcessNotFound({ message: "no app is defined yet, so `all` names nothing to start", details: { process_id: "all", suggestion: 'start an app first: pmfx start "node server.js" or pmfx start ecosystem.config.js' } }),
        o.json
      )
    }
    return null
  })

const fromFile = (file: string, o: StartOptions, variables: Record<string, string>, blocks: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const extra = appOptions(o)
    if (extra.length > 0) {
      return yield* failWith(
        badUsage(extra[0]!, `describes an app given as a command; it does not apply to an ecosystem file`, `write the setting in the app's entry of ${path.basename(file)}, or start a command instead`),
        o.json
      )
    }
    if (blocks.length > 1) {
      return yield* failWith(badUsage("--env", `selects one env_<name> block; got ${blocks.join(", ")}`, "give one --env NAME (variables go as --env KEY=VALUE)"), o.json)
    }
    const loader = yield* ConfigLoader
    const caller = yield* CallerEnvironment
    const loaded = yield* loader
      .loadFile(path.resolve(caller.cwd, file), { environment: caller.env, envName: blocks[0] })
      .pipe(Effect.catchAll((error) => failWith(error, o.json)))
    // On stderr, so stdout keeps its shape: text, or with --json one JSON line `{"warnings":[…]}`.
    if (o.json && loaded.warnings.length > 0) yield* Console.error(JSON.stringify({ warnings: loaded.warnings }))
    else for (const warning of loaded.warnings) yield* Console.error(`${style.yellow(process.stderr)("warning")} ${warning}`)
    let apps = loaded.apps
    if (Option.isSome(o.name)) {
      const wanted = o.name.value
      apps = apps.filter((app) => app.name === wanted)
      if (apps.length === 0) {
        const names = loaded.apps.map((app) => app.name)
        const closest = closestKey(wanted, names)
        return yield* failWith(
          new ProcessNotFound({
            message: `${loaded.file} has no app named ${JSON.stringify(wanted)}`,
            details: {
              process_id: wanted,
              suggestion: closest !== undefined ? `did you mean "${closest}"?` : `the file defines ${names.map((n) => JSON.stringify(n)).join(", ")}`
            }
          }),
          o.json
        )
      }
    }
    const definitions = apps.map((app) => (Object.keys(variables).length === 0 ? app : { ...app, env: { ...app.env, ...variables } }))
    return { file: loaded.file, definitions, notifications: { webhooks: loaded.webhooks, alerts: loaded.alerts } } satisfies Plan
  })

const fromCommand = (command: string, appArgs: ReadonlyArray<string>, o: StartOptions, variables: Record<string, string>, blocks: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (blocks.length > 0) {
      return yield* failWith(
        badUsage("--env", `${JSON.stringify(blocks[0])} selects an env_${blocks[0]} block, which only an ecosystem file has`, `to set a variable write --env ${blocks[0]}=value`),
        o.json
      )
    }
    if (Option.isSome(o.healthCheckUrl) && Option.isSome(o.healthCheckScript)) {
      return yield* failWith(badUsage("--health-check-url", "cannot be combined with --health-check-script", "choose one kind of health check"), o.json)
    }
    const caller = yield* CallerEnvironment
    const split = isFile(path.resolve(caller.cwd, command)) ? Either.right([command]) : splitShellWords(command)
    if (Either.isLeft(split)) {
      return yield* failWith(badUsage("command", `cannot split ${JSON.stringify(command)}: ${split.left}`, `close the quote, or quote the whole command once: pmfx start "node server.js --flag"`), o.json)
    }
    // `pmfx start app.js -- a b c`: the words after `--` are the app's own arguments.
    const [script, ...args] = [...split.right, ...appArgs]
    if (script === undefined) {
      return yield* failWith(badUsage("command", "is empty", 'give a script or a command, like pmfx start "node server.js"'), o.json)
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
    const clusterByDefault = Option.isSome(o.instances) && runsOnNode(script, Option.getOrUndefined(o.interpreter)) && !portRange
    const execMode = Option.getOrElse(o.execMode, () => (clusterByDefault ? "cluster" : undefined))
    if (execMode !== undefined) settings.exec_mode = execMode
    if (Object.keys(variables).length > 0) settings.env = variables
    set("env_file", o.envFile)
    set("cwd", o.cwd)
    set("user", o.user)
    set("group", o.group)
    set("pid_file", o.pidFile)
    if (Option.isSome(o.healthCheckUrl)) settings.health_check = { check_type: "http", url: o.healthCheckUrl.value }
    if (Option.isSome(o.healthCheckScript)) settings.health_check = { check_type: "script", script: o.healthCheckScript.value }
    // PM2's flags, each as its file key, checked by the file validator (startFlags.ts).
    const flags = givenFlags(o)
    Object.assign(settings, flagSettings(flags))
    const named = [...flags, { flag: "--port", key: "port" }, { flag: "--instances", key: "instances" }, { flag: "--name", key: "name" }]
    const loader = yield* ConfigLoader
    const loaded = yield* loader
      .fromDocument({ apps: [literal(settings)] }, caller.cwd, { environment: caller.env })
      .pipe(Effect.catchAll((error) => failWith(namedAfterFlags(error, named), o.json)))
    return { file: null, definitions: loaded.apps } satisfies Plan
  })

// ---------------------------------------------------------------------------------------------
// Sending the new apps

type Api = Parameters<Parameters<typeof withDaemon>[1]>[0]

/** Room left in a body for the JSON around the definitions (keys, brackets, commas). */
const ENVELOPE_BYTES = 4 * 1024

/**
 * The definitions in consecutive parts whose request bodies stay under the daemon's limit
 * (`MAX_BODY_BYTES`): a file of many apps, or apps with big environments, is more than one body.
 * A single definition over the limit is a part of its own (the daemon's 413 then names it).
 */
export const partsUnder = <A>(items: ReadonlyArray<A>, budget: number, sizeOf: (item: A) => number): Array<Array<A>> => {
  const parts: Array<Array<A>> = []
  let current: Array<A> = []
  let used = 0
  for (const item of items) {
    const size = sizeOf(item) + 1
    if (current.length > 0 && used + size > budget) {
      parts.push(current)
      current = []
      used = 0
    }
    current.push(item)
    used += size
  }
  if (current.length > 0) parts.push(current)
  return parts
}

/**
 * Creates the apps, in as many requests as the body limit needs. The file's webhooks and alerts go
 * with the last part, so they apply only once every app exists; when a part is refused, the apps
 * of the parts before it are deleted again, so a file is created whole or not at all, as it is in
 * one request.
 */
const createInParts = (
  api: Api,
  definitions: ReadonlyArray<AppDefinition>,
  env: Readonly<Record<string, string>>,
  notifications: Plan["notifications"]
) =>
  Effect.gen(function* () {
    const encoder = new TextEncoder()
    const fixed = encoder.encode(JSON.stringify({ env, ...notifications })).length + ENVELOPE_BYTES
    const parts = partsUnder(definitions, MAX_BODY_BYTES - fixed, (definition) => encoder.encode(JSON.stringify(definition)).length)
    const rows: Array<ProcessSummary> = []
    const created: Array<string> = []
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1
      const result = yield* api.processes.create({ payload: { definitions: part, env, ...(last ? notifications : {}) } }).pipe(
        Effect.tapError(() =>
          Effect.forEach(created, (name) => api.processes.delete({ path: { id: name } }).pipe(Effect.ignore), { concurrency: 4, discard: true })
        )
      )
      rows.push(...result.processes)
      created.push(...part.map((definition) => definition.name))
    }
    return rows
  })

// ---------------------------------------------------------------------------------------------
// The command

const byId = (rows: ReadonlyArray<ProcessSummary>) => [...rows].sort((a, b) => a.id - b.id)

export const startCommand = Command.make(
  "start",
  {
    target: Args.text({ name: "command|script|file" }).pipe(Args.withDescription('a command ("node server.js --x"), a script, or an ecosystem file'), Args.optional),
    ...options
  },
  ({ target, ...o }) =>
    Effect.gen(function* () {
      const caller = yield* CallerEnvironment
      const appArgs = yield* StartAppArguments
      const entries = o.env
      const variables = Object.fromEntries(entries.flatMap((e) => (e._tag === "Set" ? [[e.key, e.value]] : [])))
      const blocks = entries.flatMap((e) => (e._tag === "Block" ? [e.name] : []))

      if (Option.isSome(target) && Option.isSome(o.config)) {
        return yield* failWith(badUsage("--config", "cannot be combined with a command or file argument", "give either the argument or --config <file> (and --name to pick one app)"), o.json)
      }
      if (appArgs.length > 0 && (Option.isSome(o.config) || (Option.isSome(target) && looksLikeEcosystemFile(target.value)))) {
        return yield* failWith(badUsage("args", "are arguments for a command's app; an ecosystem file has none", "write them as `args` in the app's entry of the file"), o.json)
      }
      const plan: Plan = Option.isSome(o.config)
        ? yield* fromFile(o.config.value, o, variables, blocks)
        : Option.isNone(target)
          ? yield* failWith(badUsage("command", "is missing", 'give a command, a script or an ecosystem file: pmfx start "node server.js", pmfx start ecosystem.json'), o.json)
          : looksLikeEcosystemFile(target.value) && !/\s/.test(target.value.trim())
            ? yield* fromFile(target.value, o, variables, blocks)
            : yield* Effect.flatMap(existingApp(target.value, o, entries.length > 0, appArgs), (existing) =>
                existing !== null ? Effect.succeed<Plan>({ file: null, definitions: [], existing }) : fromCommand(target.value, appArgs, o, variables, blocks)
              )

      // The apps get the CLI's own environment (docs/architecture.md §4), under their env_file and env.
      const env = environmentForApps(caller.env, yield* DaemonTarget)
      const names = plan.existing !== undefined ? [...new Set(plan.existing.rows.map((row) => row.name))] : plan.definitions.map((app) => app.name)

      const outcome = yield* withDaemon(o.json, (api) =>
        Effect.gen(function* () {
          const rows: Array<ProcessSummary> = []
          const alreadyRunning: Array<ProcessAlreadyRunning> = []
          let fresh = plan.definitions
          let before: ReadonlyArray<ProcessSummary> = []
          if (plan.file !== null) {
            // Apps of the file that exist already are started as they were saved.
            before = yield* api.processes.list({ urlParams: {} })
            const existing = new Set(before.map((row) => row.name))
            fresh = plan.definitions.filter((app) => !existing.has(app.name))
            // The file's latest webhooks and alerts apply even when no app is new — before the
            // existing apps start, so their first crash is already reported.
            const notifications = plan.notifications
            if (fresh.length === 0 && notifications !== undefined && (notifications.webhooks.length > 0 || notifications.alerts !== null)) {
              yield* api.processes.create({ payload: { definitions: [], env, ...notifications } })
            }
            for (const app of plan.definitions.filter((a) => existing.has(a.name))) {
              const started = yield* api.processes.start({ path: { id: app.name } }).pipe(
                Effect.map((result) => result.processes),
                Effect.catchTag("PROCESS_ALREADY_RUNNING", (error) => Effect.as(Effect.sync(() => alreadyRunning.push(error)), null))
              )
              if (started !== null) rows.push(...started)
            }
          }
          // Already running answers PROCESS_ALREADY_RUNNING (exit 5), as for a file's only app.
          if (plan.existing !== undefined) rows.push(...(yield* api.processes.start({ path: { id: plan.existing.target } })).processes)
          if (fresh.length > 0) rows.push(...(yield* createInParts(api, fresh, env, plan.notifications)))
          if (fresh.length === 0 && alreadyRunning.length === names.length) {
            const first = alreadyRunning[0]!
            return yield* new ProcessAlreadyRunning({
              message: names.length === 1 ? `${names[0]} is already running` : `every app of ${plan.file} is already running: ${names.join(", ")}`,
              details: { process_id: first.details.process_id, pid: first.details.pid, suggestion: `use \`pmfx restart ${names.length === 1 ? names[0] : "<name>"}\` to restart, or \`pmfx reload\` for no downtime` }
            })
          }
          const running = new Set(alreadyRunning.map((error) => error.details.process_id))
          // Of a target's apps, those that ran already (every row live) were not started now.
          if (plan.existing !== undefined) {
            for (const name of names) {
              if (plan.existing.rows.filter((row) => row.name === name).every((row) => row.status === "online" || row.status === "starting")) running.add(name)
            }
          }
          // New apps with autostart: false are registered stopped: neither started nor waited for.
          const registered = fresh.filter((app) => !app.autostart).map((app) => app.name)
          const startedApps = names.length - running.size - registered.length
          if (!o.waitReady) return { rows: [...rows, ...before.filter((row) => running.has(row.name))], alreadyRunning, startedApps, registered }
          const timeout = `${o.waitTimeout}ms`
          const ready = yield* withSpinner(
            `waiting for ${names.join(", ")} to be ready (up to ${formatDuration(o.waitTimeout)})`,
            Effect.forEach(names.filter((name) => !registered.includes(name)), (name) => api.processes.ready({ path: { id: name }, urlParams: { timeout } }), { concurrency: "unbounded" })
          ).pipe(Effect.either)
          // A timeout is reported below, with the state each instance was left in.
          if (Either.isLeft(ready) && ready.left._tag === "READY_TIMEOUT") return ready.left
          return { rows: (yield* ready).flat(), alreadyRunning, startedApps, registered }
        })
      )
      if (outcome instanceof ReadyTimeout) {
        if (o.json) return yield* failWith(outcome, true)
        const states = Object.entries(outcome.details.states).map(([id, state]) => `id ${id} ${state}`)
        const name = outcome.details.process_id
        yield* Console.error(
          [
            renderError(outcome),
            `  state: ${states.join(", ")}`,
            `  suggestion: the app is still running; see why with \`pmfx logs ${name}\` and \`pmfx list\`, or wait longer with --wait-timeout`
          ].join("\n")
        )
        return yield* new CliExit({ code: errorMeta.READY_TIMEOUT.exitCode })
      }

      const rows = byId(outcome.rows)
      if (o.json) return yield* printJson(rows)
      const lines = outcome.alreadyRunning.map((error) => `${style.yellow(process.stdout)(error.details.process_id)} is already running`)
      if (outcome.startedApps > 0) lines.push(`${style.green(process.stdout)("started")} ${plural(outcome.startedApps, "app")}${o.waitReady ? ", all ready" : ""}`)
      if (outcome.registered.length > 0) {
        lines.push(`${style.dim(process.stdout)("registered stopped")} ${outcome.registered.join(", ")} (autostart: false; \`pmfx start <name>\` runs it)`)
      }
      lines.push(renderProcessTable(rows))
      yield* Console.log(lines.join("\n"))
    })
).pipe(Command.withDescription("Start a command, a script, or the apps of an ecosystem file (--config <file> works as the argument does); words after -- are the app's arguments"))
