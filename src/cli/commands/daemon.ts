/**
 * `pmfx daemon`: the daemon in the foreground (systemd, containers). `bin.ts` runs it directly
 * from `dist/daemon.cjs` before the CLI starts, and the daemon parses its own options
 * (src/daemon/DaemonOptions.ts, whose table gives the descriptions here); this entry gives it its
 * help text and serves the rare invocation that reaches the command tree (global options before
 * `daemon`), which passes the options on as it got them.
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as path from "node:path"
import { daemonFlags, type DaemonFlag } from "../../daemon/DaemonOptions"
import { requireLocal } from "../DaemonTarget"
import { CliExit } from "../output"

const flag = (name: DaemonFlag) => Options.boolean(name).pipe(Options.withDescription(daemonFlags[name].description))
const valued = (
  name: DaemonFlag &
    (
      | "host"
      | "api-key"
      | "read-only-api-key"
      | "config"
      | "header-timeout"
      | "request-timeout"
      | "keep-alive-timeout"
      | "max-connections"
    )
) =>
  Options.text(name).pipe(
    Options.withPseudoName(daemonFlags[name].pseudo),
    Options.withDescription(daemonFlags[name].description),
    Options.optional
  )

const options = {
  web: flag("web"),
  host: valued("host"),
  port: Options.integer("port").pipe(
    Options.withPseudoName(daemonFlags.port.pseudo),
    Options.withDescription(daemonFlags.port.description),
    Options.optional
  ),
  apiKey: valued("api-key"),
  readOnlyApiKey: valued("read-only-api-key"),
  allowInsecure: flag("allow-insecure"),
  metricsPublic: flag("metrics-public"),
  config: valued("config"),
  headerTimeout: valued("header-timeout"),
  requestTimeout: valued("request-timeout"),
  keepAliveTimeout: valued("keep-alive-timeout"),
  maxConnections: valued("max-connections")
}

export const daemonCommand = Command.make("daemon", options, (o) =>
  Effect.gen(function* () {
    yield* requireLocal("daemon", "it is the daemon of this machine")
    const args = [
      ...(o.web ? ["--web"] : []),
      ...Option.match(o.host, { onNone: () => [], onSome: (v) => [`--host=${v}`] }),
      ...Option.match(o.port, { onNone: () => [], onSome: (v) => [`--port=${v}`] }),
      ...Option.match(o.apiKey, { onNone: () => [], onSome: (v) => [`--api-key=${v}`] }),
      ...Option.match(o.readOnlyApiKey, { onNone: () => [], onSome: (v) => [`--read-only-api-key=${v}`] }),
      ...(o.allowInsecure ? ["--allow-insecure"] : []),
      ...(o.metricsPublic ? ["--metrics-public"] : []),
      ...Option.match(o.config, { onNone: () => [], onSome: (v) => [`--config=${v}`] }),
      ...Option.match(o.headerTimeout, { onNone: () => [], onSome: (v) => [`--header-timeout=${v}`] }),
      ...Option.match(o.requestTimeout, { onNone: () => [], onSome: (v) => [`--request-timeout=${v}`] }),
      ...Option.match(o.keepAliveTimeout, { onNone: () => [], onSome: (v) => [`--keep-alive-timeout=${v}`] }),
      ...Option.match(o.maxConnections, { onNone: () => [], onSome: (v) => [`--max-connections=${v}`] })
    ]
    const daemon = require(path.join(__dirname, "daemon.cjs")) as {
      readonly main: (args: ReadonlyArray<string>) => void
    }
    daemon.main(args)
    // The daemon ends the process itself when it stops; a usage error only sets the exit code.
    const refused = process.exitCode
    if (typeof refused === "number" && refused !== 0) return yield* new CliExit({ code: refused })
    yield* Effect.never
  })
).pipe(
  Command.withDescription(
    "Run the daemon in the foreground (for systemd and containers); SIGTERM stops every app and exits 0, keeping what should run for the next start. --web opens the API over TCP, --config starts an ecosystem file's apps"
  )
)
