/**
 * `--env=PORT=3000`, `--ignore-watch="node_modules"` (as PM2's docs write it), `--cors-origin=…`:
 * @effect/cli reads `--option=value` for an option given once, but not for a repeatable one — the
 * word was left over as an argument (`pmfx start app.js --ignore-watch=node_modules` was "several
 * words name apps"). Before parsing, such a word becomes the option and its value; a value that
 * starts with `-` stays joined (it would read as an option). Nothing after `--` is touched.
 */
const REPEATABLE = new Set(["--env", "--ignore-watch", "--cors-origin"])

export const splitRepeatableEquals = (argv: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === "--") {
      out.push(...argv.slice(i))
      break
    }
    const at = word.indexOf("=")
    const name = at > 0 ? word.slice(0, at) : ""
    const value = word.slice(at + 1)
    if (REPEATABLE.has(name) && value !== "" && !value.startsWith("-")) out.push(name, value)
    else out.push(word)
  }
  return out
}
