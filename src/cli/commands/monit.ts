/**
 * `pmfx monit`: a live full-screen view of every process with its CPU and memory, refreshed every
 * `--interval` seconds (README "The CLI": default 1). It draws on the terminal's alternate screen with the
 * cursor hidden and reads keys in raw mode (`q` or Ctrl-C quits); the terminal is given back as it
 * was on every way out — quit, SIGINT/SIGTERM, an error, even a `process.exit` elsewhere. What is
 * drawn is `renderMonit`, a pure function (monitView.ts).
 */
import { Command, Options } from "@effect/cli"
import { Console, Deferred, Duration, Effect, Either, Schedule } from "effect"
import { ExitCode } from "../../domain/errors"
import { withDaemon } from "../daemonCall"
import { endsOnInterrupt } from "../interrupt"
import { type MonitFrame, renderMonit } from "../monitView"
import { CliExit } from "../output"
import { colorEnabled } from "../style"
import { optionValue } from "../usage"

type Api = Parameters<Parameters<typeof withDaemon>[1]>[0]

const ENTER = "\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J" // alternate screen, hide cursor, clear
const LEAVE = "\u001b[?25h\u001b[?1049l" // show cursor, back to the main screen
const QUIT_KEYS = new Set(["q", "Q", "\u0003" /* Ctrl-C */, "\u0004" /* Ctrl-D */])

/** Takes over the terminal; the returned function gives it back (safe to call more than once). */
const takeTerminal = (onQuit: () => void, onResize: () => void): (() => void) => {
  const out = process.stdout
  const stdin = process.stdin
  // Keys are read only from a terminal; with stdin redirected, Ctrl-C still arrives as SIGINT.
  const keys = stdin.isTTY === true
  const onData = (data: Buffer | string) => {
    for (const key of data.toString()) if (QUIT_KEYS.has(key)) onQuit()
  }
  let given = false
  const giveBack = () => {
    if (given) return
    given = true
    process.off("exit", giveBack)
    out.off("resize", onResize)
    if (keys) {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
    }
    out.write(LEAVE)
  }
  out.write(ENTER)
  process.on("exit", giveBack)
  out.on("resize", onResize)
  if (keys) {
    stdin.setRawMode(true)
    stdin.on("data", onData)
    stdin.resume()
  }
  return giveBack
}

const describe = (error: unknown): string => {
  const tagged = error as { readonly _tag?: string; readonly message?: string }
  if (tagged._tag === "RequestError") return "the daemon does not answer; retrying"
  return `${tagged._tag ?? "error"}: ${tagged.message ?? String(error)}`
}

const watch = (api: Api, interval: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const out = process.stdout
      const quit = yield* Deferred.make<void>()
      let frame: MonitFrame = { rows: [], host: null, interval, time: new Date(), error: null }
      const draw = () => {
        const lines = renderMonit(frame, { width: out.columns || 80, height: out.rows || 24 }, colorEnabled(out))
        out.write(`\u001b[H${lines.map((line) => `${line}\u001b[K`).join("\n")}\u001b[J`)
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => takeTerminal(() => Deferred.unsafeDone(quit, Effect.void), draw)),
        (giveBack) => Effect.sync(giveBack)
      )
      const refresh = Effect.gen(function* () {
        const rows = yield* api.processes.list({ urlParams: {} })
        // Host figures are a bonus: the view works without them.
        const stats = yield* api.system.stats().pipe(Effect.option)
        frame = {
          rows,
          host:
            stats._tag === "Some"
              ? { cpuPercent: stats.value.cpu.usage_percent, memoryUsed: stats.value.memory.used, memoryTotal: stats.value.memory.total }
              : null,
          interval,
          time: new Date(),
          error: null
        }
      }).pipe(
        Effect.catchAll((error) => Effect.sync(() => (frame = { ...frame, time: new Date(), error: describe(error) }))),
        Effect.zipRight(Effect.sync(draw))
      )
      yield* Effect.raceFirst(Effect.repeat(refresh, Schedule.spaced(Duration.millis(interval * 1000))), Deferred.await(quit))
    })
  )

export const monitCommand = Command.make(
  "monit",
  {
    interval: Options.float("interval").pipe(
      Options.withDescription("seconds between refreshes"),
      Options.withDefault(1),
      Options.mapEffect(
        optionValue(
          "--interval",
          (seconds: number) => (Number.isFinite(seconds) && seconds >= 0.1 ? Either.right(seconds) : Either.left(`${seconds} is below 0.1 seconds`)),
          "use --interval 1 (seconds)"
        )
      )
    )
  },
  ({ interval }) =>
    Effect.gen(function* () {
      if (process.stdout.isTTY !== true) {
        yield* Console.error("pmfx monit draws a full-screen view and needs a terminal; for one look use `pmfx list` (or `pmfx list --json`)")
        return yield* Effect.fail(new CliExit({ code: ExitCode.usage }))
      }
      yield* endsOnInterrupt
      yield* withDaemon(false, (api) => watch(api, interval))
    })
).pipe(Command.withDescription("A live full-screen view of every process with CPU and memory (q or Ctrl-C quits)"))
