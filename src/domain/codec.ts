/**
 * Settings arrive from JSON, YAML, TOML, JavaScript and `${VAR}` substitution, so one value may be
 * written as `2`, `"2"` or `" 2 "`. Each setting is therefore decoded from `unknown` by a parser
 * that returns either the canonical value or a sentence saying what was expected — the sentence
 * becomes the INVALID_CONFIG message.
 */
import { Either, ParseResult, Schema } from "effect"

export const fromUnknown = <A>(
  to: Schema.Schema<A>,
  parse: (input: unknown) => Either.Either<A, string>,
  annotations: { readonly identifier: string; readonly description: string }
): Schema.Schema<A, unknown> =>
  Schema.transformOrFail(Schema.Unknown, Schema.typeSchema(to), {
    strict: true,
    decode: (input, _, ast) =>
      Either.match(parse(input), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, input, message)),
        onRight: ParseResult.succeed
      }),
    encode: ParseResult.succeed
  }).annotations(annotations)

/** A short description of a value for messages: `string "abc"`, `an array`, `null`. */
export const describe = (input: unknown): string =>
  input === null
    ? "null"
    : Array.isArray(input)
      ? "an array"
      : typeof input === "object"
        ? "an object"
        : `${typeof input} ${JSON.stringify(input)}`
