/**
 * `pmfx validate <file|name|id>`: every problem in an ecosystem file, or OK with a line per app;
 * for a process name/id (docs/architecture.md §10), whether the daemon holds that definition (exit 4 when not).
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { quoteShellWord } from "../../domain/shellWords"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { columns, style } from "../style"
import { onTarget, targetArg } from "../target"
import { envOption, jsonOption, loadFileForCommand } from "./configOptions"

/**
 * Unknown keys are warnings (PM2 ignores them): the file is valid and the exit code 0. With
 * `--strict` they are problems, exit 3 like any INVALID_CONFIG.
 */
const strictOption = Options.boolean("strict").pipe(
  Options.withDescription("treat unknown settings as errors (INVALID_CONFIG, exit 3) instead of warnings")
)

const validateFile = (file: string, env: Option.Option<string>, json: boolean, strict: boolean) =>
  Effect.gen(function* () {
    const loaded = yield* loadFileForCommand(file, env, json, strict)
    if (json) {
      return yield* printJson({
        success: true,
        file: loaded.file,
        apps: loaded.apps.map((app) => ({
          name: app.name,
          namespace: app.namespace,
          script: app.script,
          args: app.args,
          instances: app.instances,
          port: app.port
        })),
        warnings: loaded.warnings
      })
    }
    const out = process.stdout
    const count = `${loaded.apps.length} app${loaded.apps.length === 1 ? "" : "s"}`
    const rows = loaded.apps.map((app) => [
      style.bold(out)(app.name),
      [app.script, ...app.args].map(quoteShellWord).join(" "),
      `${app.instances} instance${app.instances === 1 ? "" : "s"}`,
      app.port === null ? "" : `port ${app.port}`,
      app.namespace === "default" ? "" : `namespace ${app.namespace}`
    ])
    const lines = [`${style.green(out)("OK")} ${loaded.file}: ${count}`, ...columns(rows).map((line) => `  ${line}`)]
    for (const warning of loaded.warnings) lines.push(`${style.yellow(out)("warning")} ${warning}`)
    yield* Console.log(lines.join("\n"))
  })

/** The daemon validated the definition when it was created: what is left to check is that it is there. */
const validateProcess = (id: string, json: boolean) =>
  Effect.gen(function* () {
    const detail = yield* withDaemon(json, (api) => api.processes.get({ path: { id } }), { selector: id })
    const { config } = detail
    if (json) {
      return yield* printJson({
        success: true,
        id,
        name: detail.name,
        namespace: detail.namespace,
        app_instances: detail.app_instances,
        script: config.script,
        args: config.args,
        instances: config.instances,
        port: config.port
      })
    }
    const out = process.stdout
    const ids =
      detail.app_instances.length === 1 ? `id ${detail.app_instances[0]}` : `ids ${detail.app_instances.join(", ")}`
    yield* Console.log(
      [
        `${style.green(out)("OK")} ${style.bold(out)(detail.name)} is defined in the daemon (${ids}, namespace ${detail.namespace})`,
        `  ${[config.script, ...config.args].map(quoteShellWord).join(" ")}  ${config.instances} instance${config.instances === 1 ? "" : "s"}${config.port === null ? "" : `  port ${config.port}`}`
      ].join("\n")
    )
  })

export const validateCommand = Command.make(
  "validate",
  { target: targetArg, env: envOption, json: jsonOption, strict: strictOption },
  ({ target, env, json, strict }) =>
    onTarget(
      target,
      (file) => validateFile(file, env, json, strict),
      (id) => validateProcess(id, json)
    )
).pipe(
  Command.withDescription(
    "Check an ecosystem file and report every problem in it (exit 3 when invalid; unknown settings are warnings, exit 0, unless --strict), or check that the daemon holds a process (exit 4 when not)"
  )
)
