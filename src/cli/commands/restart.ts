/**
 * `pmfx restart <id|name|namespace|all|file> [--port P] [--update-env]`: stops and starts the rows
 * again. Given an ecosystem file, every app of it restarts with the file's current definition
 * (docs/cli.md, "Applying a file"); `--update-env` gives the apps this shell's environment.
 */
import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import { restartedHeadline } from "../actionText"
import { CallerEnvironment } from "../CallerEnvironment"
import { tryDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { failWith } from "../output"
import { badUsage } from "../usage"
import { portOverrideOption } from "./actionOptions"
import { applyFile, isEcosystemFile, onlyNames, onlyOption, updateEnvOption } from "./applyFile"
import { envOption, jsonOption } from "./configOptions"
import { actOnEach, reportRows, targetsArg } from "./selectors"
import { refuseWatchChange, watchChangeOption } from "./watchChange"

/** The body of a restart/reload of processes: the one-time port, and `--update-env`'s environment. */
export const runPayload = (port: Option.Option<string>, updateEnv: boolean) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    return {
      ...Option.match(port, { onNone: () => ({}), onSome: (p) => ({ port: p }) }),
      ...(updateEnv ? { update_env: true, env: environmentForApps(caller.env, yield* DaemonTarget) } : {})
    }
  })

/**
 * Of several arguments, an ecosystem file must be the only one: a file is applied as one request
 * (docs/cli.md, "Applying a file"), names are acted on one by one. Returns the file, if there is one.
 */
export const fileTarget = (targets: ReadonlyArray<string>, cwd: string, json: boolean) => {
  const files = targets.filter((t) => isEcosystemFile(t, cwd))
  if (files.length === 0) return Effect.succeed<string | null>(null)
  if (targets.length === 1) return Effect.succeed<string | null>(files[0] ?? null)
  return failWith(
    badUsage(
      "target",
      `${JSON.stringify(files[0])} is an ecosystem file, which is applied on its own, not with other names`,
      "run one command for the file and another for the apps, or narrow the file with --only a,b"
    ),
    json
  )
}

/** `--only` and `--env <name>` choose apps and blocks of a file: with processes they mean nothing. */
export const refuseFileOptions = (
  only: Option.Option<unknown>,
  env: Option.Option<string>,
  target: string,
  json: boolean
) =>
  Option.isSome(only)
    ? failWith(
        badUsage(
          "--only",
          `narrows an ecosystem file; ${JSON.stringify(target)} is not one`,
          "give the file, or name the app itself"
        ),
        json
      )
    : Option.isSome(env)
      ? failWith(
          badUsage(
            "--env",
            `selects an env_<name> block of an ecosystem file; ${JSON.stringify(target)} is not one`,
            "give the file, or use --update-env to refresh an app's environment"
          ),
          json
        )
      : Effect.void

/** The options `restart` and `reload` share: selectors or a file, and how to run them. */
interface RunOptions {
  readonly targets: ReadonlyArray<string>
  readonly port: Option.Option<string>
  readonly only: Option.Option<ReadonlyArray<string>>
  readonly env: Option.Option<string>
  readonly updateEnv: boolean
  readonly watch: boolean
  readonly json: boolean
}

/**
 * What `restart` and `reload` do before acting on selectors: `--watch` is refused with the way to
 * change it; an ecosystem file is applied whole in `mode` (`--port` refused there); file options
 * need a file; `--port` needs one selector. None when the command is done (a file was applied),
 * else the body of the request for each selector.
 */
export const prepareRun = (mode: "restart" | "reload", o: RunOptions) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    const file = yield* fileTarget(o.targets, caller.cwd, o.json)
    if (o.watch) return yield* refuseWatchChange(file, o.targets, o.json)
    if (file !== null) {
      if (Option.isSome(o.port))
        return yield* failWith(
          badUsage(
            "--port",
            "overrides one app's port; it does not apply to a file",
            `write the port in the file, or ${mode} the app by name`
          ),
          o.json
        )
      yield* applyFile({
        file,
        mode,
        only: onlyNames(o.only),
        envBlock: Option.getOrUndefined(o.env),
        updateEnv: o.updateEnv,
        json: o.json
      })
      return Option.none()
    }
    yield* refuseFileOptions(o.only, o.env, o.targets.join(" "), o.json)
    if (Option.isSome(o.port) && o.targets.length > 1)
      return yield* failWith(
        badUsage(
          "--port",
          "overrides one app's port; it does not apply to several selectors",
          `${mode} the app alone with --port, then the others`
        ),
        o.json
      )
    return Option.some(yield* runPayload(o.port, o.updateEnv))
  })

/** The options `restart` and `reload` share (prepareRun routes them). */
export const runOptions = {
  targets: targetsArg,
  port: portOverrideOption,
  only: onlyOption,
  env: envOption,
  updateEnv: updateEnvOption,
  watch: watchChangeOption,
  json: jsonOption
}

/** What the summary line adds after the count: the port of this run, the refreshed environment. */
export const runQualifier = (port: Option.Option<string>, updateEnv: boolean): string =>
  Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` }) +
  (updateEnv ? " with this shell's environment" : "")

export const restartCommand = Command.make(
  "restart",
  runOptions,
  ({ targets, port, only, env, updateEnv, watch, json }) =>
    Effect.gen(function* () {
      const prepared = yield* prepareRun("restart", { targets, port, only, env, updateEnv, watch, json })
      if (Option.isNone(prepared)) return
      const payload = prepared.value
      const outcome = yield* actOnEach(targets, (target) =>
        tryDaemon(json, (api) => api.processes.restart({ path: { id: target }, payload }), { selector: target })
      )
      const qualifier = runQualifier(port, updateEnv)
      yield* reportRows(outcome, json, "restarted", (rows) => restartedHeadline(rows, qualifier))
    })
).pipe(
  Command.withDescription(
    "Restart processes by id, app name, namespace, or all — or every app of an ecosystem file with its current definition; --port overrides the port for this run only, --update-env refreshes the environment"
  )
)
