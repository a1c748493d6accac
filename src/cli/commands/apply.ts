/**
 * `pmfx apply <file> [--prune] [--dry-run] [--only a,b] [--env name] [--update-env]`: the
 * declarative form of applying an ecosystem file (docs/cli.md, `pmfx apply`). New apps are
 * created, changed ones restarted (reloaded when they can be), unchanged ones left alone;
 * `--prune` deletes the apps of the file's namespaces it no longer names; `--dry-run` prints the
 * plan and changes nothing.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { applyFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { envOption, jsonOption } from "./configOptions"

export const applyCommand = Command.make(
  "apply",
  {
    file: Args.text({ name: "file" }).pipe(
      Args.withDescription("an ecosystem file: .json, .yaml, .yml, .toml, .js, .cjs or .mjs")
    ),
    prune: Options.boolean("prune").pipe(
      Options.withDescription("also delete the apps of the file's namespaces that the file does not name")
    ),
    dryRun: Options.boolean("dry-run").pipe(
      Options.withDescription(
        "print the plan (create, update with the changed keys, unchanged, delete) and change nothing"
      )
    ),
    only: onlyOption,
    env: envOption,
    updateEnv: updateEnvOption,
    json: jsonOption
  },
  ({ file, prune, dryRun, only, env, updateEnv, json }) =>
    applyFile({
      file,
      mode: "apply",
      only: onlyNames(only),
      envBlock: Option.getOrUndefined(env),
      updateEnv,
      prune,
      dryRun,
      json
    }).pipe(Effect.asVoid)
).pipe(
  Command.withDescription(
    "Apply an ecosystem file: create new apps, restart (or reload) changed ones, leave the rest; --dry-run prints the plan, --prune deletes apps the file dropped"
  )
)
