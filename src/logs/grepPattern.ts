/**
 * The `grep` of a log query (docs/api.md, `GET /api/processes/{id}/logs`), compiled with re2js, a
 * pure-JavaScript port of RE2. RE2 matches in time linear in the line whatever the pattern, so no
 * query can stall the daemon's thread the way a backtracking `RegExp` can (`^(a|a)*$` on 32
 * characters took 13 s). The price is RE2's syntax: no backreferences, no lookaround; such
 * patterns are refused with a reason and a way out rather than silently matched differently.
 *
 * `/pattern/flags` passes flags, as before: `i`, `m` and `s` mean what they mean in JavaScript;
 * `g`, `y`, `u` and `d` change nothing for a yes/no test on one line and are accepted and ignored.
 *
 * The most common search, a plain word, skips the engine: `includes`, or with `i` a literal-only
 * `RegExp` (no quantifier, no alternation: nothing to backtrack, and `u` folds case as RE2 does).
 * re2js costs ~0.2 µs a line, but ~1.3 µs with `i`; these cost under 0.1 µs.
 */
import { Either } from "effect"
import { RE2JS, RE2JSException, RE2JSSyntaxException } from "re2js"

/** Longer patterns are refused: a log search is a few words, and compiling is not free. */
export const MAX_GREP_LENGTH = 512

/** A compiled `grep`: whether a message contains a match. */
export interface GrepPattern {
  readonly test: (message: string) => boolean
}

/** Why a `grep` was refused, in the words of a BAD_REQUEST's details. */
export interface GrepRefusal {
  readonly reason: string
  readonly suggestion: string
}

/** Where the syntax is explained, for `grep` or another setting that takes a pattern (`ready_log_line`). */
const syntaxHint = (subject: string) =>
  subject === "grep"
    ? "grep uses RE2 syntax (like grep -E and Go), see docs/api.md"
    : `${subject} uses RE2 syntax (like grep -E and Go), see docs/configuration.md`

/** The `/…/flags` letters a pattern may carry (g, y, u and d are accepted and change nothing). */
const FLAG_LETTERS = "imsgyud"

/**
 * re2js's flag bits for `letters`. Read here, not in a table at load: reading `RE2JS` evaluates
 * re2js (its Unicode tables), which the bundles defer to the first pattern that needs it
 * (scripts/build.mjs).
 */
const flagBits = (letters: string): number =>
  (letters.includes("i") ? RE2JS.CASE_INSENSITIVE : 0) |
  (letters.includes("m") ? RE2JS.MULTILINE : 0) |
  (letters.includes("s") ? RE2JS.DOTALL : 0)

/** A pattern without any metacharacter: it matches exactly its own text. */
const PLAIN = /^[^\\^$.|?*+()[\]{}]*$/

const refuse = (reason: string, suggestion: string): Either.Either<never, GrepRefusal> =>
  Either.left({ reason, suggestion })

/** What RE2 refused, said for a user who wrote a JavaScript or PCRE pattern. */
const explain = (error: RE2JSSyntaxException, subject: string): GrepRefusal => {
  const SYNTAX_HINT = syntaxHint(subject)
  const at = error.input ?? ""
  if (/^\\(?:[1-9]|k)/.test(at)) {
    return {
      reason: `backreferences like ${at} are not supported (${SYNTAX_HINT})`,
      suggestion:
        "match the repeated text itself, like (\\w+) \\w+ or error: error, or narrow the search with level, stream or since"
    }
  }
  if (/^\(\?(?:=|!|<=|<!)/.test(at)) {
    return {
      reason: `lookahead and lookbehind like ${at.slice(0, 4)}…) are not supported (${SYNTAX_HINT})`,
      suggestion:
        "match the surrounding text too, like foo bar instead of (?<=foo )bar, or use a character class like [^x] for a negative look"
    }
  }
  if (at === "\\u") {
    return {
      reason: `\\uXXXX is not RE2 syntax (${SYNTAX_HINT})`,
      suggestion: "write a character by its code as \\x{00e9}, or type the character itself"
    }
  }
  return {
    reason: `${error.getDescription()}${at === "" ? "" : ` at \`${at}\``} (${SYNTAX_HINT})`,
    suggestion: "give a valid RE2 regular expression; escape ( ) [ { * + ? . | \\ with \\ to match them literally"
  }
}

/** Compiles `text`: a pattern, or `/pattern/flags`; `subject` names the setting in refusals. */
export const compileGrep = (text: string, subject = "grep"): Either.Either<GrepPattern, GrepRefusal> => {
  if (text.length > MAX_GREP_LENGTH) {
    return refuse(
      `the pattern is longer than ${MAX_GREP_LENGTH} characters`,
      "search for a shorter, distinctive part of the line"
    )
  }
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(text)
  const pattern = literal === null ? text : literal[1]!
  const letters = literal?.[2] ?? ""
  for (const flag of letters) {
    if (!FLAG_LETTERS.includes(flag))
      return refuse(
        `unknown flag "${flag}" in ${text}`,
        "use the flags i (ignore case), m (multiline) or s (dot matches newline), like /timeout/i"
      )
  }
  if (PLAIN.test(pattern)) {
    // A plain pattern never needs re2js: `includes`, or a RegExp of escape-free text for /…/i.
    if (!letters.includes("i")) return Either.right({ test: (message) => message.includes(pattern) })
    const caseless = new RegExp(pattern, "iu")
    return Either.right({ test: (message) => caseless.test(message) })
  }
  try {
    return Either.right(RE2JS.compile(pattern, flagBits(letters)))
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) return Either.left(explain(error, subject))
    if (error instanceof RE2JSException)
      return refuse(error.message, "use a simpler pattern: fewer and smaller repetition counts")
    throw error
  }
}
