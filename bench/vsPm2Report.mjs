// The report of bench/vsPm2.mjs: a Markdown table (printed, and written into docs/benchmarks.md
// between the vs-pm2 markers) and a hand-written SVG bar chart of the pmfx/PM2 ratios
// (docs/images/benchmarks.svg). No dependency.
import * as fs from "node:fs"
import * as path from "node:path"
import { ROOT, fmt } from "./lib.mjs"

export const BEGIN = "<!-- vs-pm2:begin (written by `npm run bench -- --vs pm2`; edits here are overwritten) -->"
export const END = "<!-- vs-pm2:end -->"

const digits = (unit) => (unit === "s" ? 2 : unit === "% of a core" ? 2 : 1)
const value = (x, unit) => `${fmt(x, digits(unit))} ${unit}`
/** pmfx / PM2, or null when PM2's value is 0 (no ratio). */
export const ratio = (r) => (r.pm2 > 0 ? r.pmfx / r.pm2 : null)

export const renderTable = (run) => {
  const rows = [
    `pmfx vs PM2 ${run.pm2Version} — ${run.date}, one run of ${fmt(run.seconds, 0)} s; node ${run.node}; ${run.cpus}; load average at the start ${run.load}`,
    "",
    "| figure | pmfx | PM2 | ratio (pmfx/PM2) | reference |",
    "|---|---|---|---|---|"
  ]
  for (const r of run.results) {
    const q = ratio(r)
    rows.push(
      `| ${r.figure} | ${value(r.pmfx, r.unit)} | ${value(r.pm2, r.unit)} | ${q === null ? "— (PM2: 0)" : fmt(q, 2) + "x"} | ` +
        (r.reference
          ? `${r.reference.label}: ${value(r.reference.value, r.unit)} (pmfx ${fmt(r.pmfx / r.reference.value, 2)}x)`
          : "") +
        (r.note ? (r.reference ? "; " : "") + r.note : "") +
        " |"
    )
  }
  return rows.join("\n")
}

const escapeXml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/`/g, "")

/** Horizontal bars of pmfx/PM2 per figure, a line at 1.0x (shorter is better). */
export const renderSvg = (run) => {
  const rows = run.results
  const maxRatio = Math.max(2, ...rows.map((r) => ratio(r) ?? 0))
  const labelW = 300
  const barW = 380
  const rowH = 30
  const top = 46
  const width = labelW + barW + 90
  const height = top + rows.length * rowH + 34
  const x = (q) => labelW + (q / maxRatio) * barW
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="13" role="img">`,
    `<title>pmfx against PM2 ${escapeXml(run.pm2Version)}: the ratio of each figure, measured in one run</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">pmfx / PM2 ${escapeXml(run.pm2Version)}, same run (shorter is better; 1.0x = PM2)</text>`,
    `<text x="10" y="37" fill="#555">${escapeXml(run.date.slice(0, 10))}, ${escapeXml(run.cpus)}, load average at start ${escapeXml(run.load)}</text>`
  ]
  rows.forEach((r, i) => {
    const y = top + i * rowH
    const q = ratio(r)
    parts.push(`<text x="${labelW - 8}" y="${y + 19}" text-anchor="end">${escapeXml(r.figure)}</text>`)
    if (q === null) {
      parts.push(
        `<text x="${labelW + 4}" y="${y + 19}" fill="#555">PM2 0 ${escapeXml(r.unit)}; pmfx ${fmt(r.pmfx, 2)} ${escapeXml(r.unit)}</text>`
      )
      return
    }
    const color = q <= 1 ? "#2e7d32" : "#c62828"
    parts.push(
      `<rect x="${labelW}" y="${y + 6}" width="${Math.max(1, x(q) - labelW).toFixed(1)}" height="${rowH - 12}" fill="${color}"/>`
    )
    parts.push(`<text x="${(x(q) + 6).toFixed(1)}" y="${y + 19}">${fmt(q, 2)}x</text>`)
  })
  const bottom = top + rows.length * rowH
  parts.push(
    `<line x1="${x(1).toFixed(1)}" y1="${top}" x2="${x(1).toFixed(1)}" y2="${bottom}" stroke="#000" stroke-dasharray="4 3"/>`
  )
  parts.push(`<text x="${x(1).toFixed(1)}" y="${bottom + 18}" text-anchor="middle">1.0x (PM2)</text>`)
  parts.push(`</svg>`)
  return parts.join("\n") + "\n"
}

/** Replaces the marked block of docs/benchmarks.md and writes the SVG; returns what it did. */
export const writeDocs = (run) => {
  const doc = path.join(ROOT, "docs", "benchmarks.md")
  const svg = path.join(ROOT, "docs", "images", "benchmarks.svg")
  const text = fs.readFileSync(doc, "utf8")
  const a = text.indexOf(BEGIN)
  const b = text.indexOf(END)
  if (a < 0 || b < a) throw new Error(`docs/benchmarks.md has no ${BEGIN} … ${END} block to replace`)
  const block = `${BEGIN}\n${renderTable(run)}\n\n![pmfx/PM2 ratios](images/benchmarks.svg)\n${END}`
  fs.writeFileSync(doc, text.slice(0, a) + block + text.slice(b + END.length))
  fs.mkdirSync(path.dirname(svg), { recursive: true })
  fs.writeFileSync(svg, renderSvg(run))
  return `wrote the table into docs/benchmarks.md and the chart into docs/images/benchmarks.svg`
}
