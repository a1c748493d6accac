/**
 * `pmfx restart <id|name|namespace|all|file> [--port P] [--update-env]`: stops and starts the rows
 * again. Given an ecosystem file, every app of it restarts with the file's current definition
 * (docs/cli.md, "Applying a file"); `--update-env` gives the apps this shell's environment.
 */
import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import { CallerEnvironment } from "../CallerEnvironment"
import { tryDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { failWith } from "../output"
import { style } from "../style"
import { badUsage } from "../usage"
import { plural, portOverrideOption } from "./actionOptions"
import { applyFile, isEcosystemFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { envOption, jsonOption } from "./configOptions"
import { actOnEach, reportRows, targetsArg } from "./selectors"
import { refuseWatchChange, watchChangeOption } from "./watchChange"

/** The body of a restart/reload of processes: the one-time port, and `--update-env`'s environment. */
export const runPayload = (port: Option.Option<string>, updateEnv: boolean) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    return {
      ...Option.match(port, { onNone: () => ({}), onSome: (p) => ({ port: p }) }),
      ...(updateEnv ? { update_env: true, env: environmentForApps(caller.env, yield* DaemonTarget) } : {})
    }
  })

/**
 * Of several arguments, an ecosystem file must be the only one: a file is applied as one request
 * (docs/cli.md, "Applying a file"), names are acted on one by one. Returns the file, if there is one.
 */
export const fileTarget = (targets: ReadonlyArray<string>, cwd: string, json: boolean) => {
  const files = targets.filter((t) => isEcosystemFile(t, cwd))
  if (files.length === 0) return Effect.succeed<string | null>(null)
  if (targets.length === 1) return Effect.succeed<string | null>(files[0] ?? null)
  return failWith(
    badUsage(
      "target",
      `${JSON.stringify(files[0])} is an ecosystem file, which is applied on its own, not with other names`,
      "run one command for the file and another for the apps, or narrow the file with --only a,b"
    ),
    json
  )
}

/** `--only` and `--env <name>` choose apps and blocks of a file: with processes they mean nothing. */
export const refuseFileOptions = (
  only: Option.Option<unknown>,
  env: Option.Option<string>,
  target: string,
  json: boolean
) =>
  Option.isSome(only)
    ? failWith(
        badUsage(
          "--only",
          `narrows an ecosystem file; ${JSON.stringify(target)} is not one`,
          "give the file, or name the app itself"
        ),
        json
      )
    : Option.isSome(env)
      ? failWith(
          badUsage(
            "--env",
            `selects an env_<name> block of an ecosystem file; ${JSON.stringify(target)} is not one`,
            "give the file, or use --update-env to refresh an app's environment"
          ),
          json
        )
      : Effect.void

export const restartCommand = Command.make(
  "restart",
  {
    targets: targetsArg,
    port: portOverrideOption,
    only: onlyOption,
    env: envOption,
    updateEnv: updateEnvOption,
    watch: watchChangeOption,
    json: jsonOption
  },
  ({ targets, port, only, env, updateEnv, watch, json }) =>
    Effect.gen(function* () {
      const caller = yield* CallerEnvironment
      const file = yield* fileTarget(targets, caller.cwd, json)
      if (watch) return yield* refuseWatchChange(file, targets, json)
      if (file !== null) {
        if (Option.isSome(port))
          return yield* failWith(
            badUsage(
              "--port",
              "overrides one app's port; it does not apply to a file",
              "write the port in the file, or restart the app by name"
            ),
            json
          )
        return yield* applyFile({
          file,
          mode: "restart",
          only: onlyNames(only),
          envBlock: Option.getOrUndefined(env),
          updateEnv,
          json
        })
      }
      yield* refuseFileOptions(only, env, targets.join(" "), json)
      if (Option.isSome(port) && targets.length > 1)
        return yield* failWith(
          badUsage(
            "--port",
            "overrides one app's port; it does not apply to several selectors",
            "restart the app alone with --port, then the others"
          ),
          json
        )
      const payload = yield* runPayload(port, updateEnv)
      const outcome = yield* actOnEach(targets, (target) =>
        tryDaemon(json, (api) => api.processes.restart({ path: { id: target }, payload }), { selector: target })
      )
      const on = Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` })
      const withEnv = updateEnv ? " with this shell's environment" : ""
      yield* reportRows(
        outcome,
        json,
        "restarted",
        (rows) =>
          `${style.green(process.stdout)("restarted")} ${plural(rows.length, "process", "processes")}${on}${withEnv}`
      )
    })
).pipe(
  Command.withDescription(
    "Restart processes by id, app name, namespace, or all — or every app of an ecosystem file with its current definition; --port overrides the port for this run only, --update-env refreshes the environment"
  )
)
