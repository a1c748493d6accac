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
import { Args, Command } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as path from "node:path"
import { looksLikeEcosystemFile } from "../../config/ConfigFormat"
import { formatDuration } from "../../domain/Duration"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { CallerEnvironment } from "../CallerEnvironment"
import { tryDaemon, withDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { reportReadyTimeout } from "../readyTimeout"
import { withSpinner } from "../spinner"
import { style } from "../style"
import { badUsage } from "../usage"
import { plural } from "./actionOptions"
import { applyFile, onlyNames } from "./applyFile"
import { StartAppArguments } from "./startFlags"
import { appOptions, options, type StartOptions } from "./startOptions"
import { existingApp, fromCommand, type Plan } from "./startPlan"
import { actOnEach, mergeRows, reportOutcome } from "./selectors"

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
          if (Either.isLeft(ready) && ready.left._tag === "READY_TIMEOUT") {
            // A crash loop may be caught `starting`: its restarts tell it from a slow start.
            const now = yield* api.processes.list({ urlParams: {} }).pipe(Effect.orElseSucceed(() => []))
            const restarted = now.some((row) => names.includes(row.name) && row.restarts > 0)
            return { _tag: "TimedOut" as const, timeout: ready.left, restarted }
          }
          return { rows: (yield* ready).flat(), startedApps, registered }
        })
      )
      if (outcome._tag === "TimedOut") return yield* reportReadyTimeout(outcome.timeout, o.json, outcome.restarted)

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
