/**
 * `Schema.decodeUnknown(schema, { onExcessProperty: "error" })` — a body with a key the schema does
 * not know is refused, naming it — at the cost of a plain decode when the body has no such key.
 *
 * Effect's excess-property check is slow: `POST /api/apply` with 50 apps (58 KB) took ~110 ms to
 * decode in the daemon (which runs interpreted until a log flood, docs/decisions.md), ~13 ms
 * without the check — before the first of the 50 spawns (docs/decisions.md, "Starting 50 apps,
 * second pass"). So the body is decoded without the check first; a decoded struct keeps only the
 * keys its schema knows, so when every key of the body (through its objects and arrays) is still
 * in the decoded value, no key was excess and the strict decode would give the same value. When a
 * key went missing, or the plain decode failed, the strict decode runs and its error is the answer,
 * as before.
 */
import { Effect, Either, type ParseResult, Schema } from "effect"

/** Whether every key of `input`, through its nested objects and arrays, is in `output` at the same place. */
export const keepsEveryKey = (input: unknown, output: unknown): boolean => {
  if (typeof input !== "object" || input === null) return true
  if (typeof output !== "object" || output === null) return false
  if (Array.isArray(input)) {
    if (!Array.isArray(output) || output.length !== input.length) return false
    for (let i = 0; i < input.length; i++) if (!keepsEveryKey(input[i], output[i])) return false
    return true
  }
  const from = input as Readonly<Record<string, unknown>>
  const to = output as Readonly<Record<string, unknown>>
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key) || !keepsEveryKey(from[key], to[key])) return false
  }
  return true
}

/** Decodes `input` as `schema` with excess properties refused (see above). */
export const decodeStrictly =
  <A, I>(schema: Schema.Schema<A, I, never>) =>
  (input: unknown): Effect.Effect<A, ParseResult.ParseError> => {
    const plain = Schema.decodeUnknownEither(schema)(input)
    if (Either.isRight(plain) && keepsEveryKey(input, plain.right)) return Effect.succeed(plain.right)
    return Schema.decodeUnknown(schema, { onExcessProperty: "error" })(input)
  }
