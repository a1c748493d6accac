/**
 * monit's connection to the daemon's `/ws` feed (docs/api.md §9): the process list, every status
 * change (with exit codes and signals), the 1 s metrics samples and the selected row's log lines,
 * as they happen. Over the unix socket locally; with `--url`, over the TCP listener with the API
 * key in the handshake's `Authorization` header. A lost connection is retried every second until
 * monit quits; the row being followed is subscribed to again on each new connection.
 */
import { Duration, Effect, Redacted } from "effect"
// Named, not the default import: the bundle loads ws on first use, through its named exports
// (scripts/build.mjs, LAZY_PACKAGES).
import { type RawData, WebSocket } from "ws"
import type { Target } from "../DaemonTarget"
import { decodeFeedMessage, feedEvents } from "./feedMessage"
import type { MonitEvent } from "./MonitState"

export interface FeedAddress {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export const feedAddress = (target: Target, socket: string): FeedAddress =>
  target._tag === "Local"
    ? { url: `ws+unix://${socket}:/ws`, headers: {} }
    : {
        url: `${target.url.replace(/^http/, "ws")}/ws`,
        headers: target.apiKey._tag === "Some" ? { authorization: `Bearer ${Redacted.value(target.apiKey.value)}` } : {}
      }

const RETRY = Duration.seconds(1)
const HANDSHAKE_TIMEOUT_MS = 5_000

export interface LiveFeed {
  /** Sends this row's log lines from now on (and after every reconnection). */
  readonly follow: (id: number) => Effect.Effect<void>
}

/** Runs the feed until the scope closes; every message monit uses becomes an event for `emit`. */
export const openLiveFeed = (address: FeedAddress, emit: (event: MonitEvent) => void) =>
  Effect.gen(function* () {
    let socket: WebSocket | null = null
    let followed: number | null = null
    const subscribe = () => {
      if (socket !== null && socket.readyState === WebSocket.OPEN && followed !== null) {
        socket.send(JSON.stringify({ type: "subscribe", channels: ["logs"], ids: [followed] }))
      }
    }
    /** One connection, from handshake to close; succeeds with why it ended. */
    const connectOnce = Effect.async<string>((resume) => {
      const ws = new WebSocket(address.url, { headers: { ...address.headers }, handshakeTimeout: HANDSHAKE_TIMEOUT_MS })
      let reason = "the connection to the daemon closed"
      let ended = false
      ws.on("open", () => {
        socket = ws
        emit({ _tag: "Connection", connection: { _tag: "Live" } })
        subscribe()
      })
      ws.on("message", (data: RawData) => {
        const message = decodeFeedMessage(data.toString())
        if (message !== undefined) for (const event of feedEvents(message)) emit(event)
      })
      ws.on("error", (error: Error) => {
        // ws reports a refused handshake as "Unexpected server response: 401".
        reason = /: 401$/.test(error.message)
          ? "the daemon refused the API key"
          : `daemon unreachable (${error.message})`
      })
      ws.on("close", (code: number) => {
        if (socket === ws) socket = null
        if (ended) return
        ended = true
        resume(
          Effect.succeed(
            code === 1001
              ? "the daemon closed the connection (going away)"
              : code === 4401
                ? "the API key was refused"
                : reason
          )
        )
      })
      return Effect.sync(() => {
        ended = true
        if (socket === ws) socket = null
        ws.removeAllListeners("message")
        ws.on("error", () => {})
        ws.terminate()
      })
    })
    yield* Effect.forkScoped(
      Effect.forever(
        connectOnce.pipe(
          Effect.tap((reason) => Effect.sync(() => emit({ _tag: "Connection", connection: { _tag: "Down", reason } }))),
          Effect.zipRight(Effect.sleep(RETRY))
        )
      )
    )
    const feed: LiveFeed = {
      follow: (id) =>
        Effect.sync(() => {
          followed = id
          subscribe()
        })
    }
    return feed
  })
