/**
 * How deeply outside data (an ecosystem file, a request body) may nest. An app definition needs
 * about six levels; the limit keeps hostile data (a megabyte of `[[[[…`, a JavaScript config that
 * refers to itself) away from the recursive code that substitutes, validates and copies settings,
 * where it would overflow the stack. Files and bodies share it, so whatever a file may hold can
 * also be sent to the API.
 */
export const MAX_NESTING = 32

/**
 * The nesting depth of a parsed value, counted without recursion (so it cannot overflow itself),
 * and giving up as soon as it passes `limit` (so a cycle ends too).
 */
export const nestingDepth = (value: unknown, limit = MAX_NESTING): number => {
  let deepest = 0
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next
    if (typeof current !== "object" || current === null) continue
    deepest = Math.max(deepest, depth + 1)
    if (deepest > limit) return deepest
    for (const child of Object.values(current)) pending.push([child, depth + 1])
  }
  return deepest
}
