/**
 * The thin shell around monit's pure parts: it takes the terminal, opens the live feed, and runs
 * one loop — take the events that arrived, `reduce` them, carry out the requests the reducer
 * asked for (each in its own fiber, its answer coming back as an event), draw what changed.
 */
import { Duration, Effect, Option, Queue, type Scope } from "effect"
import { isPmfxError } from "../../domain/errors"
import type { DaemonClient } from "../DaemonClient"
import { refusalOf } from "../remoteRefusal"
import { colorEnabled } from "../style"
import { feedAddress, type LiveFeed, openLiveFeed } from "./liveFeed"
import {
  type Action,
  BACKLOG_LINES,
  initialMonitState,
  type MonitCommand,
  type MonitEvent,
  type MonitState,
  reduce,
  type Sample
} from "./MonitState"
import { renderScreen } from "./monitScreen"
import { takeTerminal } from "./terminal"

type Api = Effect.Effect.Success<DaemonClient["ensureDaemon"]>
type Client = Pick<DaemonClient, "target" | "paths">

export type ShellEvent = MonitEvent | { readonly _tag: "Resize" }

/** The detail (health, ports) of the selected row is read again this often. */
const TICK = Duration.seconds(1)
/** Events that arrive within this long of each other are drawn as one frame (at most 20 a second). */
const FRAME = Duration.millis(50)

/** Log lines of one row that arrived one after another become one event: one copy of the ring, not one per line. */
export const joinLogEvents = (events: ReadonlyArray<ShellEvent>): Array<ShellEvent> => {
  const joined: Array<ShellEvent> = []
  for (const event of events) {
    const last = joined.at(-1)
    if (event._tag === "Log" && last?._tag === "Log" && last.id === event.id)
      joined[joined.length - 1] = { ...last, lines: [...last.lines, ...event.lines] }
    else joined.push(event)
  }
  return joined
}

/** One line for a failed request: the daemon's message and what to do, or what went wrong. */
const describeFailure = (error: unknown): Effect.Effect<string> =>
  Effect.gen(function* () {
    if (isPmfxError(error)) {
      const suggestion = (error.details as { readonly suggestion?: unknown }).suggestion
      return typeof suggestion === "string"
        ? `${error._tag}: ${error.message} (${suggestion})`
        : `${error._tag}: ${error.message}`
    }
    const refusal = yield* refusalOf(error)
    if (Option.isSome(refusal)) {
      const { error: code, message } = refusal.value
      return `${code.toUpperCase()}: ${message}${/read-only/i.test(message) ? " (give monit the daemon's full API key to act)" : ""}`
    }
    const tagged = error as { readonly _tag?: string; readonly message?: string }
    return tagged._tag === "RequestError"
      ? "the daemon does not answer; try again once it is back"
      : `${tagged._tag ?? "error"}: ${tagged.message ?? String(error)}`
  })

const act = (api: Api, action: Action, app: string): Effect.Effect<{ readonly message: string }, unknown> => {
  const path = { id: app }
  switch (action) {
    case "restart":
      return api.processes.restart({ path, payload: {} })
    case "reload":
      return api.processes.reload({ path, payload: {} })
    case "stop":
      return api.processes.stop({ path })
    case "start":
      return api.processes.start({ path })
  }
}

export const runMonit = (api: Api, client: Client) =>
  Effect.scoped(
    Effect.gen(function* () {
      const events = yield* Queue.unbounded<ShellEvent>()
      const emit = (event: ShellEvent) => void Queue.unsafeOffer(events, event)
      const terminal = yield* takeTerminal({
        onKey: (key) => emit({ _tag: "Key", key }),
        onResize: () => emit({ _tag: "Resize" })
      })
      const feed: LiveFeed = yield* openLiveFeed(feedAddress(client.target, client.paths.socket), emit)
      yield* Effect.forkScoped(
        Effect.forever(Effect.sleep(TICK).pipe(Effect.zipRight(Effect.sync(() => emit({ _tag: "Tick" })))))
      )

      const answer = <A, E>(request: Effect.Effect<A, E>, toEvent: (value: A) => MonitEvent | null) =>
        Effect.forkScoped(
          request.pipe(
            Effect.map(toEvent),
            // A read that fails (the row was just deleted, the daemon is restarting) is read again on the next change.
            Effect.catchAll(() => Effect.succeed(null)),
            Effect.tap((event) => (event === null ? Effect.void : Effect.sync(() => emit(event))))
          )
        )
      const fetchDetail = (id: number) =>
        answer(api.processes.get({ path: { id: String(id) } }), (detail) => ({ _tag: "Detail", detail }))

      const carryOut = (command: MonitCommand): Effect.Effect<void, never, Scope.Scope> => {
        switch (command._tag) {
          case "Follow": {
            const id = String(command.id)
            return Effect.all([
              feed.follow(command.id),
              fetchDetail(command.id),
              answer(api.processes.logs({ path: { id }, urlParams: { lines: String(BACKLOG_LINES) } }), (answer) => ({
                _tag: "Backlog",
                id: command.id,
                lines: answer.entries.map(({ timestamp, stream, level, message }) => ({
                  timestamp,
                  stream,
                  level,
                  message
                }))
              })),
              answer(api.processes.metrics({ path: { id }, urlParams: {} }), (metrics) => ({
                _tag: "History",
                id: command.id,
                samples: metrics.history.map(
                  (point): Sample => ({ at: Date.parse(point.timestamp), cpu: point.cpu_usage, memory: point.rss })
                )
              }))
            ]).pipe(Effect.asVoid)
          }
          case "FetchDetail":
            return Effect.asVoid(fetchDetail(command.id))
          case "Act":
            return Effect.forkScoped(
              act(api, command.action, command.app).pipe(
                Effect.matchEffect({
                  onSuccess: (result) =>
                    Effect.succeed<MonitEvent>({ _tag: "ActionDone", notice: { text: result.message, tone: "info" } }),
                  onFailure: (error) =>
                    Effect.map(
                      describeFailure(error),
                      (text): MonitEvent => ({ _tag: "ActionDone", notice: { text, tone: "error" } })
                    )
                }),
                Effect.tap((event) => Effect.sync(() => emit(event)))
              )
            ).pipe(Effect.asVoid)
        }
      }

      const color = colorEnabled(process.stdout)
      let previous: ReadonlyArray<string> = []
      const draw = (full: boolean) =>
        Effect.sync(() => {
          const lines = renderScreen(
            state,
            { width: terminal.width(), height: terminal.height() },
            { color, now: Date.now() }
          )
          let chunk = full ? "\u001b[2J" : ""
          lines.forEach((line, i) => {
            if (full || previous[i] !== line) chunk += `\u001b[${i + 1};1H${line}\u001b[K`
          })
          previous = lines
          if (chunk !== "") terminal.write(chunk)
        })

      let state: MonitState = initialMonitState
      yield* draw(true)
      while (!state.quit) {
        const batch = [
          yield* Queue.take(events),
          ...(yield* Effect.sleep(FRAME).pipe(Effect.zipRight(Queue.takeAll(events))))
        ]
        let resized = false
        const commands: Array<MonitCommand> = []
        for (const event of joinLogEvents(batch)) {
          if (event._tag === "Resize") {
            resized = true
            continue
          }
          const step = reduce(state, event)
          state = step.state
          commands.push(...step.commands)
          if (state.quit) break
        }
        if (state.quit) break
        yield* Effect.forEach(commands, carryOut, { discard: true })
        yield* draw(resized)
      }
    })
  )
