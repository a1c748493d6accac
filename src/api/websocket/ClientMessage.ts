/**
 * What a WebSocket client may send (DESIGN §8): `auth` (first message, when the handshake had no
 * key), `subscribe` / `unsubscribe` to log lines (all apps, or the listed ids or names), and
 * `ping` (answered with `pong`). Anything else gets an `error` message; the session stays open.
 */
import { Schema } from "effect"

const Channel = Schema.Literal("logs")

const Target = Schema.Union(Schema.Int, Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)))

export const AuthMessage = Schema.Struct({ type: Schema.Literal("auth"), key: Schema.String })

export const SubscribeMessage = Schema.Struct({
  type: Schema.Literal("subscribe"),
  channels: Schema.Array(Channel).pipe(Schema.minItems(1)),
  /** Process ids or names whose lines to send; every app's when absent. */
  ids: Schema.optional(Schema.Array(Target).pipe(Schema.maxItems(1000)))
})

export const UnsubscribeMessage = Schema.Struct({ type: Schema.Literal("unsubscribe"), channels: Schema.Array(Channel).pipe(Schema.minItems(1)) })

export const PingMessage = Schema.Struct({ type: Schema.Literal("ping") })

export const ClientMessage = Schema.Union(AuthMessage, SubscribeMessage, UnsubscribeMessage, PingMessage)
export type ClientMessage = typeof ClientMessage.Type

/** Client messages are small; a bigger one is refused without parsing it. */
export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024
