/**
 * Where the command is among the words after `pmfx`: the first word that is neither a root option
 * nor the value of one, and never past `--`. `--url` and `--api-key` (pmfx's) and `--log-level`
 * (@effect/cli's) take the next word as their value unless written `--name=value`: in
 * `pmfx --log-level info list`, `info` is a level, not PM2's `info` command.
 */
const TAKES_A_VALUE = new Set(["--url", "--api-key", "--log-level"])

export const commandWordAt = (words: ReadonlyArray<string>): number => {
  let at = 0
  while (at < words.length && words[at]!.startsWith("-") && words[at] !== "--")
    at += TAKES_A_VALUE.has(words[at]!) ? 2 : 1
  return at
}
