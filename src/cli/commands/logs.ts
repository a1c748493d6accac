/**
 * `pmfx logs <name|id>`: the last lines of an app's logs, filtered, and with `--follow` the new
 * ones as they are written. The last lines come from the typed client; the live lines from the
 * daemon's Server-Sent Events stream (`GET .../logs?follow=true`, docs/api.md), read with the
 * platform HttpClient the typed client uses (the unix socket, or a remote's TCP listener with
 * `--url`) — the one request the typed client cannot make.
 */
import { Args, Command, Options } from "@effect/cli"
import { HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Chunk, Console, Deferred, Duration, Effect, Either, Fiber, Option, Queue, Schema, Stream } from "effect"
import { AnyErrorWire } from "../../domain/ErrorWire"
import { ExitCode } from "../../domain/errors"
import { LogEntry, LogLevel } from "../../logs/LogEntry"
import { DaemonClient } from "../DaemonClient"
import { withDaemon } from "../daemonCall"
import { endsOnInterrupt } from "../interrupt"
import { CliExit, failWith, printJson } from "../output"
import { sseEvents } from "../sse"
import { style } from "../style"
import { badUsage, optionValue } from "../usage"
import { jsonOption } from "./configOptions"

const DEFAULT_LINES = 100

/**
 * `app[instance] message`, after the timestamp with `--timestamps`; stderr lines in red on a color
 * terminal. A piece that continues the previous line (over `max_line_length`) says so: `app[instance]+`.
 */
export const formatLogLine = (
  entry: LogEntry,
  options: { readonly timestamps: boolean; readonly raw?: boolean; readonly stream?: NodeJS.WriteStream }
): string => {
  // PM2's `--raw`: the message alone (after its timestamp with --timestamps), never colored.
  if (options.raw === true) return options.timestamps ? `${entry.timestamp ?? "-"} ${entry.message}` : entry.message
  const out = options.stream ?? process.stdout
  const source = `${entry.instance === null ? entry.app : `${entry.app}[${entry.instance}]`}${entry.continued === true ? "+" : ""}`
  const time = options.timestamps ? `${style.dim(out)(entry.timestamp ?? "-")} ` : ""
  return entry.stream === "err"
    ? `${time}${style.red(out)(`${source} ${entry.message}`)}`
    : `${time}${style.cyan(out)(source)} ${entry.message}`
}

/** Same line seen twice: once in the last lines read from the files, once on the live stream. */
const sameLine = (stored: LogEntry, live: LogEntry): boolean =>
  stored.stream === live.stream &&
  stored.message === live.message &&
  (stored.instance === null || live.instance === null || stored.instance === live.instance) &&
  // A custom `log_date_format` may store the time to the second only.
  (stored.timestamp === null ||
    live.timestamp === null ||
    Math.abs(Date.parse(stored.timestamp) - Date.parse(live.timestamp)) < 1000)

/**
 * `--follow` subscribes to the live stream before it reads the last lines, so that no line written
 * in between is lost; a line written in that window arrives both ways. The live lines that came
 * before the read finished are matched against the newest stored lines and printed only when not
 * among them.
 */
export const dropOverlap = (stored: ReadonlyArray<LogEntry>, early: ReadonlyArray<LogEntry>): Array<LogEntry> => {
  if (early.length === 0) return []
  const candidates = stored.slice(-early.length)
  const used = candidates.map(() => false)
  return early.filter((entry) => {
    const index = candidates.findIndex((candidate, i) => !used[i] && sameLine(candidate, entry))
    if (index === -1) return true
    used[index] = true
    return false
  })
}

const wholeNumber = (n: number) => (n >= 0 ? Either.right(n) : Either.left(`${n} is negative`))

const decodeEntry = Schema.decode(Schema.parseJson(LogEntry))
const decodeError = Schema.decodeUnknown(AnyErrorWire)

/**
 * The structured error of a refused follow request (404 unknown app, 400 bad filter); a remote
 * listener's 401/403 goes back as the response error `withDaemon` reports as such.
 */
const refusal = (response: HttpClientResponse.HttpClientResponse) =>
  response.status === 401 || response.status === 403
    ? Effect.fail(new HttpClientError.ResponseError({ request: response.request, response, reason: "StatusCode" }))
    : Effect.flatMap(response.json, decodeError).pipe(
        Effect.flatMap((error) => Effect.fail(error)),
        Effect.catchTag("ResponseError", "ParseError", () =>
          Effect.fail(new Error(`the daemon answered the log stream with status ${response.status}`))
        )
      )

type Item = { readonly _tag: "Entry"; readonly entry: LogEntry } | { readonly _tag: "End" }

export const logsCommand = Command.make(
  "logs",
  {
    // PM2's `pm2 logs` with no argument shows every app's lines: so does `pmfx logs`.
    given: Args.text({ name: "name|id" }).pipe(
      Args.withDescription("an app name, a process id, a namespace or all (default: all)"),
      Args.optional
    ),
    lines: Options.integer("lines").pipe(
      Options.withAlias("n"),
      Options.withPseudoName("n"),
      Options.withDescription(`how many of the newest matching lines to print (default ${DEFAULT_LINES})`),
      Options.withDefault(DEFAULT_LINES),
      Options.mapEffect(optionValue("--lines", wholeNumber, "use --lines 0 or more"))
    ),
    follow: Options.boolean("follow").pipe(
      Options.withAlias("f"),
      Options.withDescription("keep printing new lines until Ctrl-C")
    ),
    timestamps: Options.boolean("timestamps").pipe(
      Options.withAlias("t"),
      Options.withDescription("print each line's timestamp")
    ),
    error: Options.boolean("error").pipe(
      Options.withAlias("err"),
      Options.withDescription("standard error lines only (PM2's --err)")
    ),
    out: Options.boolean("out").pipe(Options.withDescription("standard output lines only (PM2's --out)")),
    raw: Options.boolean("raw").pipe(
      Options.withDescription("the messages alone: no app[instance] prefix, no colors (PM2's --raw)")
    ),
    nostream: Options.boolean("nostream").pipe(
      Options.withDescription("print the last lines and exit, as pmfx logs does without --follow (PM2's --nostream)")
    ),
    instance: Options.integer("instance").pipe(
      Options.withPseudoName("n"),
      Options.withDescription("one instance of the app (0, 1, ...)"),
      Options.mapEffect(optionValue("--instance", wholeNumber, "use an instance number from 0")),
      Options.optional
    ),
    grep: Options.text("grep").pipe(
      Options.withPseudoName("regex"),
      Options.withDescription("lines matching a regular expression in RE2 syntax, like grep -E (/pattern/i for flags)"),
      Options.optional
    ),
    level: Options.choice("level", LogLevel.literals).pipe(
      Options.withDescription("lines of this level or more severe"),
      Options.optional
    ),
    since: Options.text("since").pipe(
      Options.withPseudoName("time"),
      Options.withDescription("lines from this time on: 2026-11-21T13:00:00Z, 2026-11-21, 10m, 2h"),
      Options.optional
    ),
    until: Options.text("until").pipe(
      Options.withPseudoName("time"),
      Options.withDescription("lines up to this time (same forms as --since)"),
      Options.optional
    ),
    json: jsonOption
  },
  ({ given, lines, follow, timestamps, error, out, raw, nostream, instance, grep, level, since, until, json }) =>
    Effect.gen(function* () {
      const target = Option.getOrElse(given, () => "all")
      if (follow && Option.isSome(until)) {
        return yield* failWith(
          badUsage("--until", "a followed log has no end", "drop --until, or drop --follow to read a past window"),
          json
        )
      }
      if (follow && nostream) {
        return yield* failWith(
          badUsage(
            "--nostream",
            "cannot be combined with --follow",
            "drop --follow to print the last lines and exit, or drop --nostream to keep following"
          ),
          json
        )
      }
      if (error && out) {
        return yield* failWith(
          badUsage(
            "--out",
            "cannot be combined with --error: each keeps one stream",
            "give neither for both streams, or one of them"
          ),
          json
        )
      }
      // Filters shared by the last lines and the live stream (the daemon checks them).
      const filters = {
        ...(error ? { stream: "err" } : out ? { stream: "out" } : {}),
        ...(Option.isSome(instance) ? { instance: String(instance.value) } : {}),
        ...(Option.isSome(grep) ? { grep: grep.value } : {}),
        ...(Option.isSome(level) ? { level: level.value } : {})
      }
      type Api = Parameters<Parameters<typeof withDaemon>[1]>[0]
      const lastLines = (api: Api) =>
        api.processes.logs({
          path: { id: target },
          urlParams: {
            ...filters,
            lines: String(lines),
            ...(Option.isSome(since) ? { since: since.value } : {}),
            ...(Option.isSome(until) ? { until: until.value } : {})
          }
        })
      const print = (entry: LogEntry) =>
        Console.log(json ? JSON.stringify(entry) : formatLogLine(entry, { timestamps, raw }))
      // A closed pipe (`pmfx logs -f api | head`) ends the command quietly.
      process.stdout.on("error", (cause: NodeJS.ErrnoException) => {
        if (cause.code === "EPIPE") process.exit(0)
      })

      if (!follow) {
        const { entries } = yield* withDaemon(json, lastLines, { selector: target })
        if (json) return yield* printJson(entries)
        yield* Effect.forEach(entries, print, { discard: true })
        // `pm2 logs` keeps following; pmfx prints the last lines and ends, so it says how to follow.
        if (Option.isNone(given) && !nostream) {
          yield* Console.error(
            style.dim(process.stderr)(
              `(every app's last ${lines} lines; \`pmfx logs <app>\` for one app, \`pmfx logs -f\` to keep following as \`pm2 logs\` does)`
            )
          )
        }
        return
      }

      yield* endsOnInterrupt
      const { http, baseUrl } = yield* DaemonClient
      const items = yield* Queue.unbounded<Item>()
      const answered = yield* Deferred.make<void>()
      const live = Effect.gen(function* () {
        const response = yield* http
          .get(`${baseUrl}/api/processes/${encodeURIComponent(target)}/logs`, {
            urlParams: { ...filters, follow: "true" }
          })
          .pipe(Effect.ensuring(Deferred.succeed(answered, undefined)))
        if (response.status !== 200) return yield* refusal(response)
        yield* sseEvents(response.stream).pipe(
          Stream.filter((event) => event.event === "log"),
          Stream.mapEffect((event) => decodeEntry(event.data)),
          Stream.runForEach((entry) => Queue.offer(items, { _tag: "Entry", entry })),
          // The connection dropped (the daemon was killed): the same end as a closed stream.
          Effect.catchTag("ResponseError", () => Effect.void)
        )
        yield* Queue.offer(items, { _tag: "End" })
      })
      const printLive = Queue.take(items).pipe(
        Effect.flatMap((item) => (item._tag === "End" ? Effect.succeed(false) : Effect.as(print(item.entry), true))),
        Effect.repeat({ while: (more) => more })
      )
      // One request to the daemon as far as errors go: whichever part fails is reported once.
      yield* withDaemon(
        json,
        (api) =>
          Effect.scoped(
            Effect.gen(function* () {
              // Subscribe first (see dropOverlap), then read the last lines. The daemon answers a
              // follow request at once (a first keep-alive) once it listens; the wait is bounded in
              // case it only answers with the first line.
              const following = yield* Effect.forkScoped(live)
              yield* Deferred.await(answered).pipe(Effect.timeout(Duration.seconds(1)), Effect.ignore)
              const { entries } = yield* lastLines(api)
              yield* Effect.forEach(entries, print, { discard: true })
              const early = Chunk.toReadonlyArray(yield* Queue.takeAll(items))
              const earlyEntries = early.flatMap((item) => (item._tag === "Entry" ? [item.entry] : []))
              yield* Effect.forEach(dropOverlap(entries, earlyEntries), print, { discard: true })
              if (early.some((item) => item._tag === "End")) yield* Queue.offer(items, { _tag: "End" })
              // Until Ctrl-C, a refused stream, or the daemon ending it.
              yield* Effect.raceFirst(printLive, Effect.zipRight(Fiber.join(following), Effect.never))
            })
          ),
        { selector: target }
      )
      yield* Console.error("DAEMON_UNREACHABLE the daemon closed the log stream (it stopped or was killed)")
      return yield* Effect.fail(new CliExit({ code: ExitCode.daemonUnreachable }))
    })
).pipe(
  Command.withDescription(
    "Print the last lines of an app's logs (--lines, default 100), filtered by stream, instance, regex, level and time; --follow streams new lines until Ctrl-C"
  )
)
