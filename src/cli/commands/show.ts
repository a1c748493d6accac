/**
 * `pmfx show <file|name|id>`: for a file, the fully resolved definitions; for a process (docs/architecture.md §10), what the daemon knows of it — state, resources, health, configuration and log files — as
 * people or programs read them.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { Paths } from "../../shared/Paths"
import { instanceFiles } from "../../domain/logPaths"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderApp } from "../renderApp"
import { renderProcessDetail } from "../renderProcess"
import { style } from "../style"
import { onTarget, targetArg } from "../target"
import { envOption, jsonOption, loadFileForCommand } from "./configOptions"

const showFile = (file: string, env: Option.Option<string>, json: boolean) =>
  Effect.gen(function* () {
    const { home } = yield* Paths
    const loaded = yield* loadFileForCommand(file, env, json)
    if (json) {
      return yield* printJson({
        success: true,
        file: loaded.file,
        apps: loaded.apps.map((app) => ({
          ...app,
          files: Array.from({ length: app.instances }, (_, instance) => ({
            instance,
            ...instanceFiles(app, instance, home)
          }))
        })),
        webhooks: loaded.webhooks,
        alerts: loaded.alerts,
        warnings: loaded.warnings
      })
    }
    const out = process.stdout
    const blocks = loaded.apps.map((app) => renderApp(app, home))
    for (const warning of loaded.warnings) blocks.push(`${style.yellow(out)("warning")} ${warning}`)
    yield* Console.log(blocks.join("\n\n"))
  })

const showProcess = (id: string, json: boolean) =>
  Effect.gen(function* () {
    const detail = yield* withDaemon(json, (api) => api.processes.get({ path: { id } }), { selector: id })
    yield* json ? printJson(detail) : Console.log(renderProcessDetail(detail, Date.now()))
  })

export const showCommand = Command.make(
  "show",
  { target: targetArg, env: envOption, json: jsonOption },
  ({ target, env, json }) =>
    onTarget(
      target,
      (file) => showFile(file, env, json),
      (id) => showProcess(id, json)
    )
).pipe(
  Command.withDescription(
    "Print the fully resolved definitions of an ecosystem file (defaults, substitutions, absolute paths), or a process's state, health, configuration and log files"
  )
)
