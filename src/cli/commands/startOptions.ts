// The options of `pmfx start`, how their values are checked, and which of them describe one app.

import { Options } from "@effect/cli"
import { Either, Option } from "effect"
import { MAX_READY_TIMEOUT_MS } from "../../shared/ApiSchemas"
import { formatDuration, parseDuration } from "../../domain/Duration"
import { optionValue } from "../usage"
import { onlyOption, updateEnvOption } from "./applyFile"
import { jsonOption } from "./configOptions"
import { givenFlags, startFlagOptions } from "./startFlags"

const ENV_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/
const ENV_BLOCK = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** One `--env`: a variable to set, or the `env_<name>` block of an ecosystem file to select. */
type EnvEntry =
  | { readonly _tag: "Set"; readonly key: string; readonly value: string }
  | { readonly _tag: "Block"; readonly name: string }

const parseEnvEntry = (text: string): Either.Either<EnvEntry, string> => {
  const eq = text.indexOf("=")
  if (eq >= 0) {
    const key = text.slice(0, eq)
    return ENV_VARIABLE.test(key)
      ? Either.right({ _tag: "Set", key, value: text.slice(eq + 1) })
      : Either.left(`${JSON.stringify(key)} is not a variable name (letters, digits and _, not starting with a digit)`)
  }
  return ENV_BLOCK.test(text)
    ? Either.right({ _tag: "Block", name: text })
    : Either.left(`${JSON.stringify(text)} is neither KEY=VALUE nor the name of an env_<name> block`)
}

const parseHealthUrl = (text: string): Either.Either<string, string> => {
  try {
    const url = new URL(text.replaceAll("{port}", "80"))
    return url.protocol === "http:" || url.protocol === "https:"
      ? Either.right(text)
      : Either.left(`${JSON.stringify(text)} is not an http or https URL`)
  } catch {
    return Either.left(`${JSON.stringify(text)} is not a URL`)
  }
}

const text = (name: string, pseudo: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudo), Options.withDescription(description), Options.optional)

export const options = {
  name: Options.text("name").pipe(
    Options.withPseudoName("name"),
    Options.withAlias("n"),
    Options.withDescription(
      "the app's name (default: from the script); with an ecosystem file, start only the app of that name"
    ),
    Options.optional
  ),
  config: text(
    "config",
    "file",
    "an ecosystem file to start (the same as giving it as the argument); --name narrows it to one app"
  ),
  // (Checked by the file validator with the other app settings, as in a file: exit 3.)
  port: text(
    "port",
    "port",
    "a port (3000), a range (3000-3003, instance i gets 3000+i) or auto:5000-5100; given to the app as PORT"
  ),
  instances: Options.text("instances").pipe(
    Options.withPseudoName("n|max"),
    Options.withAlias("i"),
    Options.withDescription(
      'how many instances: a whole number, "max" (one per CPU), 0 (one per CPU) or -1 (one per CPU but one)'
    ),
    Options.optional
  ),
  execMode: Options.choice("exec-mode", ["fork", "cluster"]).pipe(
    Options.withDescription(
      "cluster: the instances are workers of one Node cluster primary sharing one port (the default with -i for a .js/.mjs/.cjs script, as in PM2, unless --port gives a range); fork: each instance is its own process"
    ),
    Options.optional
  ),
  env: Options.text("env").pipe(
    Options.withPseudoName("KEY=VALUE|NAME"),
    Options.withDescription(
      "KEY=VALUE sets a variable (repeatable); a bare NAME selects the env_NAME block of an ecosystem file"
    ),
    Options.repeated,
    // (@effect/cli repeats only plain options, so the values are checked as a list.)
    Options.mapEffect(
      optionValue(
        "--env",
        (texts: ReadonlyArray<string>) => Either.all(texts.map(parseEnvEntry)),
        "write --env KEY=VALUE, or --env production to select env_production"
      )
    )
  ),
  healthCheckUrl: Options.text("health-check-url").pipe(
    Options.withPseudoName("url"),
    Options.withDescription("check the app over HTTP at this URL ({port} stands for the instance's port)"),
    Options.mapEffect(
      optionValue("--health-check-url", parseHealthUrl, "write a URL like http://127.0.0.1:{port}/health")
    ),
    Options.optional
  ),
  healthCheckScript: text(
    "health-check-script",
    "script",
    "check the app by running this script (healthy when it exits 0)"
  ),
  waitReady: Options.boolean("wait-ready").pipe(
    Options.withDescription(
      "wait until every instance is online (and healthy, with a health check) before returning; a Node app without a health check is online once it calls process.send('ready'), as in PM2 (wait_ready)"
    )
  ),
  waitTimeout: Options.text("wait-timeout").pipe(
    Options.withPseudoName("duration"),
    Options.withDescription("how long --wait-ready waits, at most 10m (a bare number is seconds)"),
    Options.withDefault("60s"),
    // The daemon waits at most MAX_READY_TIMEOUT_MS; refused here, before any app starts.
    Options.mapEffect(
      optionValue(
        "--wait-timeout",
        (t) =>
          Either.flatMap(parseDuration(t, "s"), (ms) =>
            ms > MAX_READY_TIMEOUT_MS
              ? Either.left(`${JSON.stringify(t)} is longer than ${formatDuration(MAX_READY_TIMEOUT_MS)}`)
              : Either.right(ms)
          ),
        `write a duration like 30s, 2m or 500ms, at most ${formatDuration(MAX_READY_TIMEOUT_MS)}`
      )
    )
  ),
  pidFile: text("pid-file", "file", "the pid file"),
  user: text("user", "user", "run as this user (the daemon must run as root)"),
  group: text("group", "group", "run with this group (the daemon must run as root)"),
  cwd: text("cwd", "dir", "the app's working folder (default: the current folder)"),
  envFile: text("env-file", "file", "a file of KEY=value lines for the app's environment"),
  ...startFlagOptions,
  only: onlyOption,
  updateEnv: updateEnvOption,
  json: jsonOption
}

export type StartOptions = {
  readonly [K in keyof typeof options]: (typeof options)[K] extends Options.Options<infer A> ? A : never
}

/** Options that describe one app; with an ecosystem file they belong in the file instead. */
export const appOptions = (o: StartOptions): ReadonlyArray<string> =>
  [
    ["--port", o.port],
    ["--instances", o.instances],
    ["--exec-mode", o.execMode],
    ["--health-check-url", o.healthCheckUrl],
    ["--health-check-script", o.healthCheckScript],
    ["--pid-file", o.pidFile],
    ["--user", o.user],
    ["--group", o.group],
    ["--cwd", o.cwd],
    ["--env-file", o.envFile]
  ]
    .flatMap(([flag, value]) => (Option.isSome(value as Option.Option<unknown>) ? [flag as string] : []))
    .concat(givenFlags(o).map((given) => given.flag))
