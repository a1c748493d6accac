/** "Did you mean …?" for unknown keys: the known key at the smallest edit distance. */

const editDistance = (a: string, b: string): number => {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!
    previous[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!
      // A swap of two neighbouring letters ("scirpt") counts as one edit, like a typo does.
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + cost, swapped ? diagonal : Infinity)
      diagonal = above
    }
  }
  return previous[b.length]!
}

/** The closest known key, if it is close enough to be a plausible typo. */
export const closestKey = (unknown: string, known: Iterable<string>): string | undefined => {
  const lower = unknown.toLowerCase()
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(unknown.length / 3)) ? best : undefined
}
