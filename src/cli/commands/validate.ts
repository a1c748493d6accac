/** `pmfx validate <file>`: every problem in an ecosystem file, or OK with a line per app. */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ConfigLoader } from "../../config/ConfigLoader"
import { quoteShellWord } from "../../domain/shellWords"
import { CallerEnvironment } from "../CallerEnvironment"
import { failWith, printJson } from "../output"
import { columns, style } from "../style"
import { envOption, fileArg, jsonOption } from "./configOptions"

export const validateCommand = Command.make(
  "validate",
  { file: fileArg, env: envOption, json: jsonOption },
  ({ file, env, json }) =>
    Effect.gen(function* () {
      const loader = yield* ConfigLoader
      const caller = yield* CallerEnvironment
      const loaded = yield* loader
        .loadFile(file, { environment: caller.env, envName: Option.getOrUndefined(env) })
        .pipe(Effect.catchAll((error) => failWith(error, json)))
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
).pipe(Command.withDescription("Check an ecosystem file and report every problem in it (exit 3 when invalid)"))
