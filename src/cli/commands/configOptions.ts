/** Options shared by the commands that read an ecosystem file. */
import { Args, Options } from "@effect/cli"

export const fileArg = Args.file({ name: "file", exists: "either" }).pipe(
  Args.withDescription("an ecosystem file: .json, .yaml, .yml, .toml, .js, .cjs or .mjs")
)

export const envOption = Options.text("env").pipe(
  Options.withAlias("e"),
  Options.withDescription("merge each app's env_<NAME> block over its env (as PM2's --env)"),
  Options.optional
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("print JSON instead of text"))
