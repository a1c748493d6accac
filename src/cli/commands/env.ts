/** `pmfx env <id|name> [--show-secrets]`: the environment an instance was started with (docs/cli.md). */
import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

const showSecretsOption = Options.boolean("show-secrets").pipe(
  Options.withDescription(
    "print the values of keys that look secret (*KEY*, *SECRET*, *TOKEN*, *PASSWORD*) instead of ***"
  )
)

export const envCommand = Command.make(
  "env",
  { target: targetArg, showSecrets: showSecretsOption, json: jsonOption },
  ({ target, showSecrets, json }) =>
    Effect.gen(function* () {
      const result = yield* withDaemon(
        json,
        (api) => api.processes.env({ path: { id: target }, urlParams: showSecrets ? { show_secrets: "true" } : {} }),
        { selector: target }
      )
      if (json) return yield* printJson(result)
      const lines = Object.entries(result.env).map(([key, value]) => `${key}=${value}`)
      if (result.source === "next_start")
        lines.unshift(`# ${result.name} (id ${result.id}) does not run: the environment its next start gets`)
      if (result.masked.length > 0 && !showSecrets)
        lines.push(`# ${result.masked.length} secret-looking value(s) shown as ***; --show-secrets prints them`)
      yield* Console.log(lines.join("\n"))
    })
).pipe(
  Command.withDescription(
    "Print the environment an instance was started with (the lowest id of a name); secret-looking values masked"
  )
)
