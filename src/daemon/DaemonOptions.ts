/**
 * The command line of `pmfx daemon` (docs/architecture.md §10), parsed without @effect/cli so that the daemon's
 * bundle stays free of it: `--web` opens the TCP listener at start (`--host`, `--port`, `--api-key`,
 * `--read-only-api-key`, `--allow-insecure` as for `pmfx web`), `--config <file>` starts an
 * ecosystem file's apps. Flags take their value as `--port 9615` or `--port=9615`. The same table
 * gives the CLI's `pmfx daemon --help` its options (src/cli/commands/daemon.ts).
 */
import { Either, ParseResult, Schema } from "effect"
import { formatDuration, parseDuration } from "../domain/Duration"
import {
  DEFAULT_HEADER_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  defaultMaxConnections,
  type ListenerLimits
} from "./listenerLimits"
import { DEFAULT_WEB_HOST, DEFAULT_WEB_PORT } from "./listenerRules"

export const daemonFlags = {
  web: {
    value: false,
    description: "open the TCP listener at start, with the settings below; they win over those state.json remembers"
  },
  host: {
    value: true,
    pseudo: "host",
    description: `address the listener binds (default ${DEFAULT_WEB_HOST}; needs --web)`
  },
  port: {
    value: true,
    pseudo: "port",
    description: `port the listener binds (default ${DEFAULT_WEB_PORT}; needs --web)`
  },
  "api-key": {
    value: true,
    pseudo: "key",
    description: "the key every route but GET / requires (or PMFX_API_KEY; needs --web)"
  },
  "read-only-api-key": {
    value: true,
    pseudo: "key",
    description: "a key that may only read (or PMFX_READONLY_API_KEY; needs --web)"
  },
  "allow-insecure": { value: false, description: "listen on a non-loopback address without an API key (needs --web)" },
  "metrics-public": {
    value: false,
    description:
      "GET /metrics answers without a key, for a Prometheus scrape (app names and figures become readable; needs --web)"
  },
  config: {
    value: true,
    pseudo: "file",
    description:
      "an ecosystem file whose apps start once the saved ones are restored (apps that exist by name are left as they are)"
  },
  "header-timeout": {
    value: true,
    pseudo: "duration",
    description: `time a client has to send a request's head, on every listener (default ${formatDuration(DEFAULT_HEADER_TIMEOUT_MS)}; then 408 and the connection is closed)`
  },
  "request-timeout": {
    value: true,
    pseudo: "duration",
    description: `time a client has to send a whole request, body included (default ${formatDuration(DEFAULT_REQUEST_TIMEOUT_MS)}; log follow and WebSocket streams are not cut by it)`
  },
  "keep-alive-timeout": {
    value: true,
    pseudo: "duration",
    description: `an idle kept-alive connection closes after this (default ${formatDuration(DEFAULT_KEEP_ALIVE_TIMEOUT_MS)})`
  },
  "max-connections": {
    value: true,
    pseudo: "count",
    description:
      "connections each listener holds at once (default a quarter of the open-file limit, 32 to 1024); at the cap a new one replaces the oldest with no request in progress"
  }
} as const

export type DaemonFlag = keyof typeof daemonFlags

const Port = Schema.transformOrFail(Schema.String, Schema.Int, {
  strict: true,
  decode: (text, _, ast) => {
    const port = /^\d+$/.test(text) ? Number(text) : Number.NaN
    return port >= 1 && port <= 65535
      ? ParseResult.succeed(port)
      : ParseResult.fail(
          new ParseResult.Type(ast, text, `--port must be a whole number from 1 to 65535, not ${JSON.stringify(text)}`)
        )
  },
  encode: (port) => ParseResult.succeed(String(port))
})
/** A positive duration (`10s`, `500ms`; a bare number is milliseconds), at most a day. */
const Timeout = (flag: string) =>
  Schema.transformOrFail(Schema.String, Schema.Int, {
    strict: true,
    decode: (text, _, ast) => {
      const parsed = parseDuration(text)
      if (parsed._tag === "Left") return ParseResult.fail(new ParseResult.Type(ast, text, `--${flag}: ${parsed.left}`))
      return parsed.right >= 1 && parsed.right <= 86_400_000
        ? ParseResult.succeed(parsed.right)
        : ParseResult.fail(
            new ParseResult.Type(ast, text, `--${flag} must be between 1ms and 1d, not ${JSON.stringify(text)}`)
          )
    },
    encode: (ms) => ParseResult.succeed(formatDuration(ms))
  })
const ConnectionCount = Schema.transformOrFail(Schema.String, Schema.Int, {
  strict: true,
  decode: (text, _, ast) => {
    const count = /^\d+$/.test(text) ? Number(text) : Number.NaN
    return count >= 1 && count <= 65_535
      ? ParseResult.succeed(count)
      : ParseResult.fail(
          new ParseResult.Type(
            ast,
            text,
            `--max-connections must be a whole number from 1 to 65535, not ${JSON.stringify(text)}`
          )
        )
  },
  encode: (count) => ParseResult.succeed(String(count))
})
const NonEmpty = (flag: string) =>
  Schema.String.pipe(Schema.minLength(1)).annotations({ message: () => `${flag} cannot be empty` })

/** The flags as given (strings, `true` for a bare flag), decoded into their values. */
const RawDaemonOptions = Schema.Struct({
  web: Schema.optional(Schema.Literal(true)),
  host: Schema.optional(NonEmpty("--host")),
  port: Schema.optional(Port),
  "api-key": Schema.optional(NonEmpty("--api-key")),
  "read-only-api-key": Schema.optional(NonEmpty("--read-only-api-key")),
  "allow-insecure": Schema.optional(Schema.Literal(true)),
  "metrics-public": Schema.optional(Schema.Literal(true)),
  config: Schema.optional(NonEmpty("--config")),
  "header-timeout": Schema.optional(Timeout("header-timeout")),
  "request-timeout": Schema.optional(Timeout("request-timeout")),
  "keep-alive-timeout": Schema.optional(Timeout("keep-alive-timeout")),
  "max-connections": Schema.optional(ConnectionCount)
})

export interface DaemonOptions {
  readonly help: boolean
  readonly web: boolean
  readonly host: string | undefined
  readonly port: number | undefined
  readonly apiKey: string | undefined
  readonly readOnlyApiKey: string | undefined
  readonly allowInsecure: boolean
  readonly metricsPublic: boolean
  readonly config: string | undefined
  readonly listenerLimits: ListenerLimits
}

const isFlag = (name: string): name is DaemonFlag => Object.prototype.hasOwnProperty.call(daemonFlags, name)

/** The options, or what is wrong with the command line (a usage error). */
export const parseDaemonArgs = (args: ReadonlyArray<string>): Either.Either<DaemonOptions, string> => {
  const given: Record<string, string | true> = {}
  let help = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--help" || arg === "-h") {
      help = true
      continue
    }
    if (!arg.startsWith("--")) return Either.left(`unexpected argument ${JSON.stringify(arg)}`)
    const eq = arg.indexOf("=")
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    if (!isFlag(name)) return Either.left(`unknown option --${name}`)
    if (name in given) return Either.left(`--${name} is given twice`)
    const flag = daemonFlags[name]
    if (!flag.value) {
      if (eq !== -1) return Either.left(`--${name} takes no value`)
      given[name] = true
      continue
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i]
    // `--config --web` is a forgotten value, not a file named "--web" (`--api-key=--x` still works).
    if (value === undefined || (eq === -1 && value.startsWith("--")))
      return Either.left(`--${name} needs a value (${flag.pseudo})`)
    given[name] = value
  }
  const decoded = Schema.decodeUnknownEither(RawDaemonOptions, { errors: "first" })(given)
  if (Either.isLeft(decoded))
    return Either.left(ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]?.message ?? "bad options")
  const o = decoded.right
  const options: DaemonOptions = {
    help,
    web: o.web === true,
    host: o.host,
    port: o.port,
    apiKey: o["api-key"],
    readOnlyApiKey: o["read-only-api-key"],
    allowInsecure: o["allow-insecure"] === true,
    metricsPublic: o["metrics-public"] === true,
    config: o.config,
    listenerLimits: {
      headerTimeoutMs: o["header-timeout"] ?? DEFAULT_HEADER_TIMEOUT_MS,
      requestTimeoutMs: o["request-timeout"] ?? Math.max(DEFAULT_REQUEST_TIMEOUT_MS, o["header-timeout"] ?? 0),
      keepAliveTimeoutMs: o["keep-alive-timeout"] ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: o["max-connections"] ?? defaultMaxConnections()
    }
  }
  // Node's rule: the head is part of the request, so its time cannot be the longer one.
  if (options.listenerLimits.requestTimeoutMs < options.listenerLimits.headerTimeoutMs) {
    return Either.left(
      `--request-timeout (${formatDuration(options.listenerLimits.requestTimeoutMs)}) cannot be shorter than --header-timeout (${formatDuration(options.listenerLimits.headerTimeoutMs)})`
    )
  }
  // Listener settings without --web would be silently ignored: almost certainly a forgotten --web.
  if (!options.web) {
    const stray = (["host", "port", "api-key", "read-only-api-key", "allow-insecure", "metrics-public"] as const).find(
      (name) => name in given
    )
    if (stray !== undefined) return Either.left(`--${stray} configures the web listener: add --web to open it`)
  }
  return Either.right(options)
}

export const DAEMON_USAGE =
  "usage: pmfx daemon [--web [--host host] [--port port] [--api-key key] [--read-only-api-key key] [--allow-insecure] [--metrics-public]] [--config file]\n" +
  "                   [--header-timeout duration] [--request-timeout duration] [--keep-alive-timeout duration] [--max-connections count]"

/** The text of `--help` (when the daemon is run directly; `pmfx daemon --help` is the CLI's). */
export const daemonHelp = (): string =>
  [
    DAEMON_USAGE,
    ...Object.entries(daemonFlags).map(
      ([name, flag]) => `  --${name}${"pseudo" in flag ? ` <${flag.pseudo}>` : ""}\n      ${flag.description}`
    )
  ].join("\n")
