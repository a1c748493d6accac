/**
 * What the daemon said when the typed client could not read its answer: a status the endpoint does
 * not declare (413 from the body limit, a 500), or a body of another shape (an unknown route's
 * `{success:false, error:"Not found: …"}`, a daemon of another version). A structured error body
 * is turned back into its error, so the user sees `BAD_REQUEST …` with its exit code instead of a
 * schema dump; anything else is said in one line by the caller, and logged in full at debug level.
 */
import { HttpClientError } from "@effect/platform"
import { Effect, Option, ParseResult, Schema } from "effect"
import { AnyErrorWire } from "../domain/ErrorWire"
import type { PmfxError } from "../domain/errors"

export type DaemonAnswer =
  /** A structured error the endpoint's client did not expect. */
  | { readonly _tag: "Structured"; readonly error: PmfxError }
  /** The simple shape `{success:false, error:"…"}` (unknown route, wrong method). */
  | { readonly _tag: "Simple"; readonly status: number | undefined; readonly message: string }
  /** Something else: its status (when known) and the first characters of the body. */
  | { readonly _tag: "Unreadable"; readonly status: number | undefined; readonly excerpt: string }

const SimpleBody = Schema.Struct({ success: Schema.Literal(false), error: Schema.String })

const textOf = (raw: unknown): string | undefined => {
  if (typeof raw === "string") return raw
  if (raw instanceof ArrayBuffer) return Buffer.from(raw).toString("utf8")
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")
  return undefined
}

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** Reads a body the client could not decode. */
const classify = (text: string, status: number | undefined): DaemonAnswer => {
  const body = parseJson(text)
  if (Option.isSome(body)) {
    const structured = Schema.decodeUnknownOption(AnyErrorWire)(body.value)
    if (Option.isSome(structured)) return { _tag: "Structured", error: structured.value as PmfxError }
    const simple = Schema.decodeUnknownOption(SimpleBody)(body.value)
    if (Option.isSome(simple)) return { _tag: "Simple", status, message: simple.value.error }
  }
  return { _tag: "Unreadable", status, excerpt: text.slice(0, 200) }
}

/**
 * The daemon's answer inside a failed request, when the failure is one of reading it: a response
 * with an undeclared status (its body is still unread), or a body that did not match the
 * endpoint's schema (the raw body is the value the schema was given). None for anything else.
 */
export const answerOf = (error: unknown): Effect.Effect<Option.Option<DaemonAnswer>> => {
  if (HttpClientError.isHttpClientError(error) && error._tag === "ResponseError") {
    const status = error.response.status
    return error.response.text.pipe(
      Effect.map((text) => Option.some(classify(text, status))),
      Effect.orElseSucceed(() => Option.some<DaemonAnswer>({ _tag: "Unreadable", status, excerpt: "" }))
    )
  }
  if (ParseResult.isParseError(error)) {
    const text = textOf(error.issue.actual)
    return Effect.succeed(
      Option.some(
        text === undefined ? { _tag: "Unreadable", status: undefined, excerpt: "" } : classify(text, undefined)
      )
    )
  }
  return Effect.succeedNone
}
