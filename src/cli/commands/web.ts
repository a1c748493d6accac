/**
 * `pmfx web`: makes the daemon open (or re-open) its TCP listener with these settings — the same
 * API as the socket, without the daemon control routes — and returns; the daemon remembers the
 * settings across restarts. `--stop` closes it. Keys come from the options or from
 * PMFX_API_KEY / PMFX_READONLY_API_KEY (docs/api.md, docs/architecture.md §10).
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { checkListener, DEFAULT_WEB_HOST, DEFAULT_WEB_PORT } from "../../daemon/listenerRules"
import { ExitCode } from "../../domain/errors"
import { CallerEnvironment } from "../CallerEnvironment"
import { withDaemon } from "../daemonCall"
import { requireLocal } from "../DaemonTarget"
import { CliExit, printJson } from "../output"
import { jsonOption } from "./configOptions"

const options = {
  host: Options.text("host").pipe(
    Options.withPseudoName("host"),
    Options.withDescription("address to listen on (default localhost)"),
    Options.withDefault(DEFAULT_WEB_HOST)
  ),
  port: Options.integer("port").pipe(
    Options.withPseudoName("port"),
    Options.withDescription("TCP port to listen on (default 9615)"),
    Options.withDefault(DEFAULT_WEB_PORT)
  ),
  apiKey: Options.text("api-key").pipe(
    Options.withPseudoName("key"),
    Options.withDescription("key every route but GET / requires (or PMFX_API_KEY)"),
    Options.optional
  ),
  readOnlyApiKey: Options.text("read-only-api-key").pipe(
    Options.withPseudoName("key"),
    Options.withDescription("a key that may only read, with app environments masked (or PMFX_READONLY_API_KEY)"),
    Options.optional
  ),
  corsOrigin: Options.text("cors-origin").pipe(
    Options.withPseudoName("origin"),
    Options.withDescription("a browser origin allowed to call the API (repeatable)"),
    Options.repeated
  ),
  allowInsecure: Options.boolean("allow-insecure").pipe(
    Options.withDescription(
      "listen on a non-loopback address without an API key, or remove the keys of the open listener"
    )
  ),
  verbose: Options.boolean("verbose").pipe(
    Options.withDescription("log each TCP request (method, path, status, time) to the daemon log")
  ),
  metricsPublic: Options.boolean("metrics-public").pipe(
    Options.withDescription(
      "let GET /metrics answer without a key (Prometheus scrapes without one; app names and resource figures become readable by anyone who reaches the listener)"
    )
  ),
  stop: Options.boolean("stop").pipe(Options.withDescription("close the listener")),
  json: jsonOption
}

const usage = (message: string) =>
  Console.error(`pmfx web: ${message}`).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: ExitCode.usage }))))

export const webCommand = Command.make("web", options, (o) =>
  Effect.gen(function* () {
    yield* requireLocal(
      "web",
      "it opens a listener on the daemon of this machine, through a route only its socket serves"
    )
    const { env } = yield* CallerEnvironment
    if (o.stop) {
      const result = yield* withDaemon(o.json, (api) =>
        api.daemon.web({ payload: { host: o.host, port: o.port, stop: true } })
      )
      return yield* o.json
        ? printJson(result)
        : Console.log(
            result.listening ? `the web listener is open on ${result.url}` : `closed the web listener (${result.url})`
          )
    }
    const checked = checkListener(
      {
        host: o.host,
        port: o.port,
        apiKey: Option.getOrUndefined(o.apiKey),
        readOnlyApiKey: Option.getOrUndefined(o.readOnlyApiKey),
        corsOrigins: o.corsOrigin,
        verbose: o.verbose,
        allowInsecure: o.allowInsecure,
        metricsPublic: o.metricsPublic
      },
      env
    )
    if (checked._tag === "Refused") return yield* usage(checked.message)
    if (checked.warning !== null) yield* Console.error(checked.warning)
    const { settings } = checked
    if (settings.apiKey === undefined && settings.readOnlyApiKey === undefined && !o.allowInsecure) {
      // Re-running `pmfx web` (to see the address, to change the port) without the keys would
      // replace a keyed listener by an open one: refused unless asked for.
      const { web } = yield* withDaemon(o.json, (api) => api.system.status())
      if (web !== null && web.auth)
        return yield* usage(
          `the listener on ${web.host}:${web.port} requires an API key, and opening it without one would let in anyone who can reach it.\n  suggestion: give the key again (--api-key or PMFX_API_KEY), or pass --allow-insecure to remove the keys`
        )
    }
    const result = yield* withDaemon(o.json, (api) =>
      api.daemon.web({
        payload: {
          host: settings.host,
          port: settings.port,
          ...(settings.apiKey === undefined ? {} : { api_key: settings.apiKey }),
          ...(settings.readOnlyApiKey === undefined ? {} : { read_only_api_key: settings.readOnlyApiKey }),
          cors_origins: settings.corsOrigins,
          verbose: settings.verbose,
          ...(settings.metricsPublic === true ? { metrics_public: true } : {})
        }
      })
    )
    if (o.json) return yield* printJson(result)
    // The key itself is never echoed: the example names the variable holding it when the key came
    // from the environment, and `<your API key>` when it was given as an option (the shell has no such variable).
    const keyVariable = settings.apiKey === undefined ? "PMFX_READONLY_API_KEY" : "PMFX_API_KEY"
    const keyInShell = env[keyVariable] !== undefined && env[keyVariable] !== ""
    const header = result.auth ? ` -H "Authorization: Bearer ${keyInShell ? `$${keyVariable}` : "<your API key>"}"` : ""
    yield* Console.log(
      `pmfx API listening on ${result.url}${result.auth ? " (API key required)" : ""}\n  dashboard: ${result.url}/ui/${result.auth ? " (sign in with the key)" : ""}\n  try: curl${header} ${result.url}/api/processes`
    )
    if (result.auth && settings.metricsPublic === true)
      yield* Console.log(`  GET ${result.url}/metrics answers without a key (--metrics-public)`)
  })
).pipe(
  Command.withDescription(
    "Serve the API over TCP (the daemon keeps the listener and re-opens it when it starts); --stop closes it"
  )
)
