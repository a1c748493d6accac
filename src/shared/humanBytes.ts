/**
 * Byte counts for people. No imports: the launcher's `pmfx list` (src/cli/fastList.ts) renders
 * the process table with it without loading the CLI bundle.
 */

/** For people: 1536 → "1.5 KB", 52428800 → "50.0 MB" (`decimals` digits after the point). */
export const humanBytes = (bytes: number, decimals = 1): string => {
  if (bytes < 1024) return `${bytes} B`
  const units = ["KB", "MB", "GB", "TB"]
  let value = bytes / 1024
  let index = 0
  while (value >= 1024 && index < units.length - 1) {
    value /= 1024
    index++
  }
  return `${value.toFixed(decimals)} ${units[index]}`
}
