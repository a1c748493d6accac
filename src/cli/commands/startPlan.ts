// What `pmfx start <argument>` resolves to: apps the daemon holds, or one app built from a command.

import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigLoader } from "../../config/ConfigLoader"
import { runsOnNode } from "../../config/validateEcosystem"
import type { AppDefinition } from "../../domain/AppDefinition"
import { ProcessNotFound } from "../../domain/errors"
import { isNodeInterpreter } from "../../domain/nodeProgram"
import { parsePort } from "../../domain/Port"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { splitShellWords } from "../../domain/shellWords"
import { CallerEnvironment } from "../CallerEnvironment"
import { commandAppName } from "../commandAppName"
import { withDaemon } from "../daemonCall"
import { failWith } from "../output"
import { badUsage } from "../usage"
import { flagSettings, givenFlags, namedAfterFlags } from "./startFlags"
import { appOptions, type StartOptions } from "./startOptions"

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

export interface Plan {
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
export const existingApp = (target: string, o: StartOptions, hasVariables: boolean, appArgs: ReadonlyArray<string>) =>
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

export const fromCommand = (
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
    // PM2's `--wait-ready` is the app's `wait_ready`: online once it sends 'ready' (it gets the IPC
    // channel, so PM2's unguarded `process.send('ready')` works). Only a Node program can send it,
    // and with a health check the check is the sign of readiness (docs/cli.md, "pmfx start").
    const interpreter = Option.getOrUndefined(o.interpreter)
    const onNode = runsOnNode(script, interpreter) || (interpreter === undefined && isNodeInterpreter(script))
    if (o.waitReady && onNode && Option.isNone(o.healthCheckUrl) && Option.isNone(o.healthCheckScript))
      settings.wait_ready = true
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
