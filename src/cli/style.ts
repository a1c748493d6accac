/** Terminal styling: colors only on a TTY and never when `NO_COLOR` is set (no-color.org). */
export const colorEnabled = (stream: NodeJS.WriteStream): boolean =>
  stream.isTTY === true &&
  (process.env.NO_COLOR === undefined || process.env.NO_COLOR === "") &&
  process.env.TERM !== "dumb"

const paint = (open: number, close: number) => (stream: NodeJS.WriteStream) => (text: string) =>
  colorEnabled(stream) ? `\u001b[${open}m${text}\u001b[${close}m` : text

export const style = {
  bold: paint(1, 22),
  dim: paint(2, 22),
  red: paint(31, 39),
  green: paint(32, 39),
  yellow: paint(33, 39),
  cyan: paint(36, 39)
} as const

/** Pads cells into aligned columns (no borders: easy to read and to grep). */
export const columns = (rows: ReadonlyArray<ReadonlyArray<string>>, gap = 2): Array<string> => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))))
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat(widths[i]! - visibleLength(cell) + gap)))
      .join("")
      .trimEnd()
  )
}

const visibleLength = (text: string): number => text.replace(/\u001b\[\d+m/g, "").length
