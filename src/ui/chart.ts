/**
 * A line chart as inline SVG (no chart library): one metric over the last 15 minutes — or, while
 * less has been recorded, over what there is (at least 30 s), so a new process's chart is not a
 * sliver at the right edge.
 */
import { svg } from "./dom"

export interface Point {
  readonly t: number
  readonly v: number
}

const WIDTH = 600
const HEIGHT = 160
const PAD = { left: 56, right: 8, top: 10, bottom: 22 }
export const CHART_WINDOW_MS = 15 * 60_000
const MIN_SPAN_MS = 30_000

const spanLabel = (ms: number) => (ms >= 60_000 ? `−${Math.round(ms / 60_000)} min` : `−${Math.round(ms / 1000)} s`)

/** A "nice" upper bound for the axis: 1, 2 or 5 times a power of ten, at least `floor`. */
const niceMax = (max: number, floor: number) => {
  const top = Math.max(max, floor)
  const power = 10 ** Math.floor(Math.log10(top))
  return [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= top) ?? top
}

export const lineChart = (
  title: string,
  points: ReadonlyArray<Point>,
  format: (v: number) => string,
  floor: number,
  now: number = Date.now()
): SVGElement => {
  const max = niceMax(Math.max(0, ...points.map((p) => p.v)), floor)
  const oldest = points.find((p) => p.t >= now - CHART_WINDOW_MS)?.t ?? now
  const span = Math.min(CHART_WINDOW_MS, Math.max(MIN_SPAN_MS, now - oldest))
  const start = now - span
  const x = (t: number) => PAD.left + ((t - start) / span) * (WIDTH - PAD.left - PAD.right)
  const y = (v: number) => PAD.top + (1 - v / max) * (HEIGHT - PAD.top - PAD.bottom)
  const visible = points.filter((p) => p.t >= start)
  const line = visible.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ")
  const text = (content: string, attrs: Readonly<Record<string, string | number>>) => {
    const node = svg("text", { class: "axis", ...attrs })
    node.textContent = content
    return node
  }
  const titleNode = svg("title")
  titleNode.textContent = `${title}: ${visible.length} samples over the last ${spanLabel(span).slice(1)}${visible.length > 0 ? `, latest ${format(visible[visible.length - 1]!.v)}` : ""}`
  const grid = [0, 0.5, 1].flatMap((f) => [
    svg("line", { class: "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(max * f), y2: y(max * f) }),
    text(format(max * f), { x: PAD.left - 6, y: y(max * f) + 4, "text-anchor": "end" })
  ])
  return svg(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": title,
      "data-points": visible.length
    },
    titleNode,
    ...grid,
    text(spanLabel(span), { x: PAD.left, y: HEIGHT - 6 }),
    text("now", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end" }),
    ...(visible.length > 0
      ? [svg("polyline", { class: "line", points: line })]
      : [text("no samples yet", { x: WIDTH / 2, y: HEIGHT / 2, "text-anchor": "middle" })])
  )
}
