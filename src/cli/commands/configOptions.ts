/** Options shared by the commands that read an ecosystem file. */
import { Args, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { ConfigLoader } from "../../config/ConfigLoader"
import { CallerEnvironment } from "../CallerEnvironment"
import { failWith } from "../output"

export const fileArg = Args.file({ name: "file", exists: "either" }).pipe(
  Args.withDescription("an ecosystem file: .json, .yaml, .yml, .toml, .js, .cjs or .mjs")
)

export const envOption = Options.text("env").pipe(
  Options.withAlias("e"),
  Options.withPseudoName("NAME"),
  Options.withDescription("merge each app's env_<NAME> block over its env (as PM2's --env)"),
  Options.optional
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("print JSON instead of text"))

/**
 * Loads an ecosystem file the way every command reads one: with the caller's environment and the
 * chosen `env_<NAME>` block; a problem is reported (text or `--json`) and ends the command with
 * exit code 3.
 */
export const loadFileForCommand = (file: string, env: Option.Option<string>, json: boolean, strict = false) =>
  Effect.gen(function* () {
    const loader = yield* ConfigLoader
    const caller = yield* CallerEnvironment
    return yield* loader
      .loadFile(file, { environment: caller.env, envName: Option.getOrUndefined(env), strict })
      .pipe(Effect.catchAll((error) => failWith(error, json)))
  })
