/**
 * `pmfx reload <id|name|namespace|all|file> [--port P] [--update-env]`: replaces the instances one
 * at a time so n-1 keep serving (docs/architecture.md §4). An app with a single instance is
 * restarted instead, and the output says so. Given an ecosystem file, every app of it reloads with
 * the file's current definition (docs/cli.md, "Applying a file"). `--json` prints
 * `{processes, restarted_instead}` (the one action whose result carries more than the rows).
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { CallerEnvironment } from "../CallerEnvironment"
import { withDaemon } from "../daemonCall"
import { failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { badUsage } from "../usage"
import { plural, portOverrideOption, targetArg } from "./actionOptions"
import { applyFile, isEcosystemFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { envOption, jsonOption } from "./configOptions"
import { refuseFileOptions, runPayload } from "./restart"

export const reloadCommand = Command.make(
  "reload",
  { target: targetArg, port: portOverrideOption, only: onlyOption, env: envOption, updateEnv: updateEnvOption, json: jsonOption },
  ({ target, port, only, env, updateEnv, json }) =>
    Effect.gen(function* () {
      const caller = yield* CallerEnvironment
      if (isEcosystemFile(target, caller.cwd)) {
        if (Option.isSome(port)) return yield* failWith(badUsage("--port", "overrides one app's port; it does not apply to a file", "write the port in the file, or reload the app by name"), json)
        return yield* applyFile({ file: target, mode: "reload", only: onlyNames(only), envBlock: Option.getOrUndefined(env), updateEnv, json })
      }
      yield* refuseFileOptions(only, env, target, json)
      const payload = yield* runPayload(port, updateEnv)
      const result = yield* withDaemon(json, (api) => api.processes.reload({ path: { id: target }, payload }), { selector: target })
      if (json) return yield* printJson({ processes: result.processes, restarted_instead: result.restarted_instead })
      const out = process.stdout
      const on = Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` })
      const withEnv = updateEnv ? " with this shell's environment" : ""
      const lines = [`${style.green(out)("reloaded")} ${plural(result.processes.length, "process", "processes")}${on}${withEnv}`]
      for (const name of result.restarted_instead) lines.push(`${style.yellow(out)(name)} has one instance: restarted instead of reloaded`)
      lines.push(renderProcessTable(result.processes))
      yield* Console.log(lines.join("\n"))
    })
).pipe(
  Command.withDescription(
    "Reload processes with no downtime, one instance at a time (a single instance is restarted) — or every app of an ecosystem file with its current definition; --port overrides the port for this run only, --update-env refreshes the environment"
  )
)
