/** Sparklines for monit's CPU and memory history: one block character per sample, `▁` to `█`. */
const BLOCKS = "▁▂▃▄▅▆▇█"

/**
 * The newest `width` values as blocks scaled to `0 … ceiling` (values above it are drawn full),
 * right-aligned: a short history leaves blank cells on the left, so time always runs to the right edge.
 */
export const sparkline = (values: ReadonlyArray<number>, width: number, ceiling: number): string => {
  if (width <= 0) return ""
  const shown = values.slice(-width)
  const top = Number.isFinite(ceiling) && ceiling > 0 ? ceiling : 1
  const cells = shown.map((value) => {
    const fraction = Number.isFinite(value) ? Math.min(1, Math.max(0, value / top)) : 0
    return BLOCKS[Math.round(fraction * (BLOCKS.length - 1))]!
  })
  return " ".repeat(width - cells.length) + cells.join("")
}
