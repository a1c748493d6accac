/**
 * Usage errors of the CLI (exit 2, docs/architecture.md §10). Option values are checked while @effect/cli parses
 * the command line (`optionValue`), so a bad value is refused before anything runs; a combination
 * of options that cannot go together is refused by the command with `badUsage` (BAD_REQUEST, also
 * exit 2, printed like every other structured error).
 */
import { HelpDoc, ValidationError } from "@effect/cli"
import { Effect, Either } from "effect"
import { BadRequest } from "../domain/errors"

/** The text @effect/cli prints on stderr for a bad option value: code, message, suggestion. */
const usageText = (option: string, reason: string, suggestion: string) =>
  `BAD_REQUEST ${option}: ${reason}\n  suggestion: ${suggestion}`

/** The option, reason and suggestion back from a text `optionValue` made (help/usageError.ts). */
export const readUsageText = (
  text: string
): { readonly field: string; readonly reason: string; readonly suggestion: string } | undefined => {
  const match = /^BAD_REQUEST (\S+): (.*)\n {2}suggestion: ([\s\S]*)$/.exec(text.trim())
  return match === null ? undefined : { field: match[1]!, reason: match[2]!, suggestion: match[3]! }
}

/**
 * For `Options.mapEffect`: parses an option's text, or refuses it as a usage error naming the
 * option, what is wrong and what to write instead.
 */
export const optionValue =
  <I, A>(option: string, parse: (text: I) => Either.Either<A, string>, suggestion: string) =>
  (text: I): Effect.Effect<A, ValidationError.ValidationError> =>
    Either.match(parse(text), {
      onLeft: (reason) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(usageText(option, reason, suggestion)))),
      onRight: Effect.succeed
    })

/** A usage problem found by a command (options that do not go together, a missing argument). */
export const badUsage = (field: string, reason: string, suggestion: string): BadRequest =>
  new BadRequest({ message: `${field}: ${reason}`, details: { field, reason, suggestion } })
