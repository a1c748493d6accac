/**
 * Refuses the regular expressions that can take exponential time on a log line (ReDoS): a
 * quantified group that itself contains an unbounded quantifier — `(a+)+`, `(\w*)*`, `(.*,){20}`
 * (star height above one, the shape behind almost every catastrophic pattern). JavaScript cannot
 * interrupt a running match, and the daemon matches `grep` in its own thread, so such a pattern
 * from any client could stall every app's supervision. Also caps the length.
 */

export const MAX_GREP_LENGTH = 512

/** Why `pattern` is refused, or null when it is fine. */
export const regexRisk = (pattern: string): string | null => {
  if (pattern.length > MAX_GREP_LENGTH) return `the pattern is longer than ${MAX_GREP_LENGTH} characters`
  // For each open group: whether something inside it repeats without bound.
  const groups: Array<boolean> = []
  let lastGroupRepeats = false
  let previousWasGroup = false
  let i = 0
  const markRepeat = () => {
    if (groups.length > 0) groups[groups.length - 1] = true
  }
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "\\") {
      i += 2
      previousWasGroup = false
      continue
    }
    if (c === "[") {
      // A character class: quantifier characters inside are literals.
      i++
      if (pattern[i] === "^") i++
      if (pattern[i] === "]") i++
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1
      i++
      previousWasGroup = false
      continue
    }
    if (c === "(") {
      groups.push(false)
      previousWasGroup = false
      i++
      continue
    }
    if (c === ")") {
      lastGroupRepeats = groups.pop() ?? false
      // What the group held repeats inside whatever encloses it, too.
      if (lastGroupRepeats) markRepeat()
      previousWasGroup = true
      i++
      continue
    }
    const quantifier = c === "*" || c === "+" ? c : c === "{" ? (/^\{\d+(,\d*)?\}/.exec(pattern.slice(i))?.[0] ?? null) : null
    if (quantifier !== null) {
      const many = c !== "{" || repeatsMany(quantifier)
      if (many && previousWasGroup && lastGroupRepeats) return "a repeated group contains a repetition (like (a+)+), which can take exponential time"
      if (many) markRepeat()
      i += quantifier.length
      previousWasGroup = false
      continue
    }
    previousWasGroup = false
    i++
  }
  return null
}

/** Whether a `{n}`, `{n,}` or `{n,m}` quantifier allows more than a few repetitions. */
const repeatsMany = (quantifier: string): boolean => {
  const match = /^\{(\d+)(,(\d*))?\}$/.exec(quantifier)
  if (match === null) return false
  if (match[2] === undefined) return Number(match[1]) > 10
  return match[3] === "" || Number(match[3]) > 10
}
