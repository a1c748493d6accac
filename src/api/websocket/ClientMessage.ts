/**
 * What a WebSocket client may send (docs/architecture.md §9): `auth` (first message, when the handshake had no
 * key), `subscribe` / `unsubscribe` to log lines (all apps, or the listed ids or names), and
 * `ping` (answered with `pong`). Anything else gets an `error` message whose reason says, in a
 * few words, what was wrong (`parseClientMessage`); the session stays open.
 */
import { Either, ParseResult, Schema } from "effect"
import { closestKey } from "../../config/closestKey"

const Channel = Schema.Literal("logs")

const Target = Schema.Union(Schema.Int, Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)))

/** Most ids or names one `subscribe` may list. */
export const MAX_SUBSCRIBE_IDS = 1000

export const AuthMessage = Schema.Struct({ type: Schema.Literal("auth"), key: Schema.String })

export const SubscribeMessage = Schema.Struct({
  type: Schema.Literal("subscribe"),
  channels: Schema.Array(Channel).pipe(Schema.minItems(1)),
  /** Process ids or names whose lines to send; every app's when absent. */
  ids: Schema.optional(Schema.Array(Target).pipe(Schema.maxItems(MAX_SUBSCRIBE_IDS)))
})

/** Ends the log subscription, whatever it covered: there is no unsubscribing from some apps only. */
export const UnsubscribeMessage = Schema.Struct({
  type: Schema.Literal("unsubscribe"),
  channels: Schema.Array(Channel).pipe(Schema.minItems(1))
})

export const PingMessage = Schema.Struct({ type: Schema.Literal("ping") })

export const ClientMessage = Schema.Union(AuthMessage, SubscribeMessage, UnsubscribeMessage, PingMessage)
export type ClientMessage = typeof ClientMessage.Type

/** Client messages are small; a bigger one is refused without parsing it. */
export const MAX_CLIENT_MESSAGE_BYTES = 64 * 1024

/** Why a client message was refused, for people: the `reason` and `suggestion` of its `error`. */
export interface MessageProblem {
  readonly reason: string
  readonly suggestion: string
}

const MESSAGES = {
  auth: AuthMessage,
  subscribe: SubscribeMessage,
  unsubscribe: UnsubscribeMessage,
  ping: PingMessage
} as const
type MessageType = keyof typeof MESSAGES
const TYPES = Object.keys(MESSAGES) as ReadonlyArray<MessageType>
const isMessageType = (type: string): type is MessageType => Object.hasOwn(MESSAGES, type)

/**
 * Each type's decoder. On `subscribe` and `unsubscribe` a field the type does not have is an
 * error: a misspelt `ids` (or `ids` on unsubscribe) would otherwise quietly widen or end the
 * subscription. `auth` and `ping` ignore extra fields, so a client may tag its messages (an `id`
 * to match a `pong`, say) as many clients do.
 */
const strict = { onExcessProperty: "error" } as const
const DECODERS: Readonly<
  Record<MessageType, (input: unknown) => Either.Either<ClientMessage, ParseResult.ParseError>>
> = {
  auth: Schema.decodeUnknownEither(AuthMessage),
  subscribe: Schema.decodeUnknownEither(SubscribeMessage, strict),
  unsubscribe: Schema.decodeUnknownEither(UnsubscribeMessage, strict),
  ping: Schema.decodeUnknownEither(PingMessage)
}

const EXAMPLES =
  'send {"type":"subscribe","channels":["logs"]}, {"type":"unsubscribe","channels":["logs"]} or {"type":"ping"}'

const decodeJson = Schema.decodeUnknownEither(Schema.parseJson())
const Envelope = Schema.Struct({ type: Schema.String })
const decodeEnvelope = Schema.decodeUnknownEither(Envelope)

/** A value the client sent, quoted for a reason, and cut short: a message may be 64 KiB. */
const quote = (text: string): string => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)

const problem = (reason: string, suggestion: string): Either.Either<never, MessageProblem> =>
  Either.left({ reason, suggestion })

/** The first issue of a message of a known type, as a reason about the field it concerns. */
const fieldProblem = (type: MessageType, error: ParseResult.ParseError): MessageProblem => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const field = issue === undefined || issue.path.length === 0 ? "" : String(issue.path[0])
  if (issue?._tag === "Unexpected") {
    if (type === "unsubscribe" && field === "ids") {
      return {
        reason: "unsubscribe takes no ids: it ends the whole log subscription",
        suggestion:
          'to keep the lines of some apps only, send {"type":"subscribe","channels":["logs"],"ids":[...]} with those apps: it replaces the subscription'
      }
    }
    const known = Object.keys(MESSAGES[type].fields)
    const closest = closestKey(field, known)
    return {
      reason: `unknown field ${quote(field)} in a ${type} message`,
      suggestion:
        closest !== undefined && closest !== "type"
          ? `did you mean ${JSON.stringify(closest)}?`
          : `a ${type} message has only ${known.map((key) => JSON.stringify(key)).join(", ")}`
    }
  }
  switch (field) {
    case "channels":
      return {
        reason: 'channels must be ["logs"]',
        suggestion:
          'send "channels": ["logs"]; log lines are the only channel to subscribe to, everything else comes without asking'
      }
    case "ids":
      return {
        reason: `ids must be an array of at most ${MAX_SUBSCRIBE_IDS} process ids or names`,
        suggestion: 'send "ids": ["api", 3], or leave ids out for the lines of every app'
      }
    case "key":
      return { reason: "key must be a string", suggestion: 'send {"type":"auth","key":"<key>"}' }
    default:
      return { reason: `not a valid ${type} message`, suggestion: EXAMPLES }
  }
}

/**
 * Decodes a client message (text), or says in plain words what is wrong with it: not JSON, no
 * or an unknown `type`, a wrong field, a field the type does not have.
 */
export const parseClientMessage = (text: string): Either.Either<ClientMessage, MessageProblem> => {
  const json = decodeJson(text)
  if (Either.isLeft(json)) return problem("not JSON", `send one JSON object per message, like {"type":"ping"}`)
  const value = json.right
  if (typeof value !== "object" || value === null || Array.isArray(value)) return problem("not a JSON object", EXAMPLES)
  const envelope = decodeEnvelope(value)
  if (Either.isLeft(envelope)) return problem('no "type" (a string)', EXAMPLES)
  const type = envelope.right.type
  if (!isMessageType(type)) return problem(`unknown type ${quote(type)}; expected one of ${TYPES.join(", ")}`, EXAMPLES)
  return Either.mapLeft(DECODERS[type](value), (error) => fieldProblem(type, error))
}
