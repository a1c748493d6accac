/** `pmfx show <file>`: the fully resolved definitions, as people or programs read them. */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ConfigLoader } from "../../config/ConfigLoader"
import { Paths } from "../../daemon/Paths"
import { instanceFiles } from "../../domain/logPaths"
import { CallerEnvironment } from "../CallerEnvironment"
import { failWith, printJson } from "../output"
import { renderApp } from "../renderApp"
import { style } from "../style"
import { envOption, fileArg, jsonOption } from "./configOptions"

export const showCommand = Command.make("show", { file: fileArg, env: envOption, json: jsonOption }, ({ file, env, json }) =>
  Effect.gen(function* () {
    const loader = yield* ConfigLoader
    const caller = yield* CallerEnvironment
    const { home } = yield* Paths
    const loaded = yield* loader
      .loadFile(file, { environment: caller.env, envName: Option.getOrUndefined(env) })
      .pipe(Effect.catchAll((error) => failWith(error, json)))
    if (json) {
      return yield* printJson({
        success: true,
        file: loaded.file,
        apps: loaded.apps.map((app) => ({
          ...app,
          files: Array.from({ length: app.instances }, (_, instance) => ({ instance, ...instanceFiles(app, instance, home) }))
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
).pipe(Command.withDescription("Print the fully resolved definitions of an ecosystem file (defaults, substitutions, absolute paths)"))
