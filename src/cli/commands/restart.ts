/**
 * `pmfx restart <id|name|namespace|all|file> [--port P] [--update-env]`: stops and starts the rows
 * again. Given an ecosystem file, every app of it restarts with the file's current definition
 * (docs/cli.md, "Applying a file"); `--update-env` gives the apps this shell's environment.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { CallerEnvironment } from "../CallerEnvironment"
import { withDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { badUsage } from "../usage"
import { plural, portOverrideOption, targetArg } from "./actionOptions"
import { applyFile, isEcosystemFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { envOption, jsonOption } from "./configOptions"

/** The body of a restart/reload of processes: the one-time port, and `--update-env`'s environment. */
export const runPayload = (port: Option.Option<string>, updateEnv: boolean) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    return {
      ...Option.match(port, { onNone: () => ({}), onSome: (p) => ({ port: p }) }),
      ...(updateEnv ? { update_env: true, env: environmentForApps(caller.env, yield* DaemonTarget) } : {})
    }
  })

/** `--only` and `--env <name>` choose apps and blocks of a file: with processes they mean nothing. */
export const refuseFileOptions = (only: Option.Option<unknown>, env: Option.Option<string>, target: string, json: boolean) =>
  Option.isSome(only)
    ? failWith(badUsage("--only", `narrows an ecosystem file; ${JSON.stringify(target)} is not one`, "give the file, or name the app itself"), json)
    : Option.isSome(env)
      ? failWith(badUsage("--env", `selects an env_<name> block of an ecosystem file; ${JSON.stringify(target)} is not one`, "give the file, or use --update-env to refresh an app's environment"), json)
      : Effect.void

export const restartCommand = Command.make(
  "restart",
  { target: targetArg, port: portOverrideOption, only: onlyOption, env: envOption, updateEnv: updateEnvOption, json: jsonOption },
  ({ target, port, only, env, updateEnv, json }) =>
    Effect.gen(function* () {
      const caller = yield* CallerEnvironment
      if (isEcosystemFile(target, caller.cwd)) {
        if (Option.isSome(port)) return yield* failWith(badUsage("--port", "overrides one app's port; it does not apply to a file", "write the port in the file, or restart the app by name"), json)
        return yield* applyFile({ file: target, mode: "restart", only: onlyNames(only), envBlock: Option.getOrUndefined(env), updateEnv, json })
      }
      yield* refuseFileOptions(only, env, target, json)
      const payload = yield* runPayload(port, updateEnv)
      const result = yield* withDaemon(json, (api) => api.processes.restart({ path: { id: target }, payload }), { selector: target })
      if (json) return yield* printJson(result.processes)
      const on = Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` })
      const withEnv = updateEnv ? " with this shell's environment" : ""
      yield* Console.log(`${style.green(process.stdout)("restarted")} ${plural(result.processes.length, "process", "processes")}${on}${withEnv}\n${renderProcessTable(result.processes)}`)
    })
).pipe(
  Command.withDescription(
    "Restart processes by id, app name, namespace, or all — or every app of an ecosystem file with its current definition; --port overrides the port for this run only, --update-env refreshes the environment"
  )
)
