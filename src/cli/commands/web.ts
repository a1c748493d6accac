/**
 * `pmfx web`: makes the daemon open (or re-open) its TCP listener with these settings — the same
 * API as the socket, without the daemon control routes — and returns; the daemon remembers the
 * settings across restarts. `--stop` closes it. Keys come from the options or from
 * PMFX_API_KEY / PMFX_READONLY_API_KEY (DESIGN §7, §9).
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { isLoopbackHost } from "../../api/webGuard"
import { ExitCode } from "../../domain/errors"
import { CallerEnvironment } from "../CallerEnvironment"
import { withDaemon } from "../daemonCall"
import { CliExit, printJson } from "../output"
import { jsonOption } from "./configOptions"

const options = {
  host: Options.text("host").pipe(Options.withDescription("address to listen on"), Options.withDefault("localhost")),
  port: Options.integer("port").pipe(Options.withDescription("TCP port to listen on"), Options.withDefault(9615)),
  apiKey: Options.text("api-key").pipe(Options.withDescription("key every route but GET / requires (or PMFX_API_KEY)"), Options.optional),
  readOnlyApiKey: Options.text("read-only-api-key").pipe(
    Options.withDescription("a key that may only read, with app environments masked (or PMFX_READONLY_API_KEY)"),
    Options.optional
  ),
  corsOrigin: Options.text("cors-origin").pipe(Options.withDescription("a browser origin allowed to call the API (repeatable)"), Options.repeated),
  allowInsecure: Options.boolean("allow-insecure").pipe(Options.withDescription("listen on a non-loopback address without an API key")),
  verbose: Options.boolean("verbose").pipe(Options.withDescription("log each TCP request (method, path, status, time) to the daemon log")),
  stop: Options.boolean("stop").pipe(Options.withDescription("close the listener")),
  json: jsonOption
}

const usage = (message: string) => Console.error(`pmfx web: ${message}`).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.usage }))))

export const webCommand = Command.make("web", options, (o) =>
  Effect.gen(function* () {
    const { env } = yield* CallerEnvironment
    const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value)
    const apiKey = Option.getOrUndefined(o.apiKey) ?? nonEmpty(env.PMFX_API_KEY)
    const readOnlyApiKey = Option.getOrUndefined(o.readOnlyApiKey) ?? nonEmpty(env.PMFX_READONLY_API_KEY)
    if (o.stop) {
      const result = yield* withDaemon(o.json, (api) => api.daemon.web({ payload: { host: o.host, port: o.port, stop: true } }))
      return yield* o.json ? printJson(result) : Console.log(result.listening ? `the web listener is open on ${result.url}` : `closed the web listener (${result.url})`)
    }
    if (o.port < 1 || o.port > 65535) return yield* usage(`--port must be between 1 and 65535, not ${o.port}`)
    if (apiKey === "" || readOnlyApiKey === "") return yield* usage("an API key cannot be empty")
    const keyed = apiKey !== undefined || readOnlyApiKey !== undefined
    if (!keyed && !isLoopbackHost(o.host) && !o.allowInsecure) {
      return yield* usage(
        `refusing to listen on ${o.host} without an API key: anyone who can reach it could run commands as you.\n  suggestion: give --api-key (or PMFX_API_KEY), listen on localhost, or pass --allow-insecure`
      )
    }
    if (!keyed) {
      yield* Console.error("warning: the web listener has no API key: every local user (and every program) that can reach it can control your processes")
    }
    const result = yield* withDaemon(o.json, (api) =>
      api.daemon.web({
        payload: {
          host: o.host,
          port: o.port,
          ...(apiKey === undefined ? {} : { api_key: apiKey }),
          ...(readOnlyApiKey === undefined ? {} : { read_only_api_key: readOnlyApiKey }),
          cors_origins: o.corsOrigin,
          verbose: o.verbose
        }
      })
    )
    if (o.json) return yield* printJson(result)
    const header = result.auth ? ` -H "Authorization: Bearer ${apiKey === undefined ? "$PMFX_READONLY_API_KEY" : "$PMFX_API_KEY"}"` : ""
    yield* Console.log(`pmfx API listening on ${result.url}${result.auth ? " (API key required)" : ""}\n  try: curl${header} ${result.url}/api/processes`)
  })
).pipe(Command.withDescription("Serve the API over TCP (the daemon keeps the listener and re-opens it when it starts); --stop closes it"))
