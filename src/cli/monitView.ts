/**
 * The snapshot `pmfx monit` prints when its output is no terminal (docs/cli.md, `monit`), as a pure
 * function of the data and a size: a header with the host's load, then one line per process with
 * CPU and memory bars. Every line fits the width; the lines fit the height (rows that do not fit
 * are counted on the last line). The live full-screen view is monit/monitScreen.ts.
 */
import type { ProcessSummary } from "../domain/ProcessSummary"
import { humanBytes } from "../domain/Size"
import { shortUptime } from "../shared/uptime"

export interface MonitHost {
  readonly cpuPercent: number
  readonly memoryUsed: number
  readonly memoryTotal: number
}

export interface MonitFrame {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** Host-wide figures; null when they could not be read. */
  readonly host: MonitHost | null
  /** When the data was read. */
  readonly time: Date
  /** Why the last refresh failed (the rows shown are older); null when it worked. */
  readonly error: string | null
}

export interface MonitSize {
  readonly width: number
  readonly height: number
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g

export const visibleLength = (text: string): number => text.replace(ANSI, "").length

/** Cuts a line to `width` visible characters, keeping escape sequences whole (and closing them). */
export const truncateVisible = (text: string, width: number): string => {
  if (width <= 0) return ""
  if (visibleLength(text) <= width) return text
  let out = ""
  let visible = 0
  for (let i = 0; i < text.length; ) {
    if (text[i] === "\u001b") {
      const match = /^\u001b\[[0-9;]*m/.exec(text.slice(i))
      if (match !== null) {
        out += match[0]
        i += match[0].length
        continue
      }
    }
    if (visible >= width - 1) break
    out += text[i]
    visible++
    i++
  }
  // The last visible column marks the cut; a cut escape sequence is closed.
  return `${out}…${text.includes("\u001b[") ? "\u001b[0m" : ""}`
}

const painter = (color: boolean) => {
  const paint = (open: number, close: number) => (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text
  return {
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    inverse: paint(7, 27)
  }
}

/** `████░░░░` for a fraction of `width` cells. */
export const bar = (fraction: number, width: number): string => {
  if (width <= 0) return ""
  const clamped = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0
  const full = Math.round(clamped * width)
  return "█".repeat(full) + "░".repeat(width - full)
}

const pad = (text: string, width: number, right = false) => {
  const fill = " ".repeat(Math.max(0, width - visibleLength(text)))
  return right ? fill + text : text + fill
}

interface Column {
  readonly title: string
  readonly right?: boolean
  /** Dropped first when the terminal is narrow (higher goes first); 0 is never dropped. */
  readonly drop: number
  readonly cell: (row: ProcessSummary) => string
  /** Fixed width, for bars. */
  readonly width?: number
}

const clock = (time: Date) => time.toTimeString().slice(0, 8)

export const renderMonit = (frame: MonitFrame, size: MonitSize, color = false): Array<string> => {
  const p = painter(color)
  const width = Math.max(1, size.width)
  const height = Math.max(1, size.height)
  const biggest = Math.max(1, ...frame.rows.map((row) => row.memory_usage))
  const barWidth = width >= 110 ? 12 : 8
  const status = (row: ProcessSummary) =>
    (row.status === "online"
      ? p.green
      : row.status === "errored"
        ? p.red
        : row.status === "stopped"
          ? p.dim
          : p.yellow)(row.status)
  const running = (row: ProcessSummary) => row.pid !== null
  const all: Array<Column> = [
    { title: "ID", right: true, drop: 0, cell: (row) => String(row.id) },
    {
      title: "Name",
      drop: 0,
      cell: (row) =>
        row.instance === 0 && !frame.rows.some((r) => r.name === row.name && r.instance > 0)
          ? row.name
          : `${row.name}[${row.instance}]`
    },
    { title: "Status", drop: 0, cell: status },
    { title: "PID", right: true, drop: 4, cell: (row) => (row.pid === null ? "-" : String(row.pid)) },
    { title: "CPU", right: true, drop: 0, cell: (row) => (running(row) ? `${row.cpu_usage.toFixed(1)}%` : "-") },
    {
      title: "",
      drop: 2,
      width: barWidth,
      cell: (row) => (running(row) ? p.dim(bar(row.cpu_usage / 100, barWidth)) : " ".repeat(barWidth))
    },
    {
      title: "Memory",
      right: true,
      drop: 0,
      cell: (row) => (row.memory_usage === 0 ? "-" : humanBytes(row.memory_usage))
    },
    {
      title: "",
      drop: 3,
      width: barWidth,
      cell: (row) => (running(row) ? p.dim(bar(row.memory_usage / biggest, barWidth)) : " ".repeat(barWidth))
    },
    { title: "Uptime", right: true, drop: 5, cell: (row) => (running(row) ? shortUptime(row.uptime) : "-") },
    { title: "Restarts", right: true, drop: 6, cell: (row) => String(row.restarts) },
    {
      title: "Health",
      drop: 7,
      cell: (row) =>
        row.health_status === "none"
          ? "-"
          : row.health_status === "unhealthy"
            ? p.red(row.health_status)
            : row.health_status
    }
  ]
  // Drop the least useful columns until the table fits (the name is cut last, by truncation).
  const layout = (columns: ReadonlyArray<Column>) => {
    const widths = columns.map(
      (column) =>
        column.width ??
        Math.max(visibleLength(column.title), ...frame.rows.map((row) => visibleLength(column.cell(row))))
    )
    return { columns, widths, total: widths.reduce((a, b) => a + b, 0) + 2 * (columns.length - 1) }
  }
  let chosen = layout(all)
  for (const level of [7, 6, 5, 4, 3, 2]) {
    if (chosen.total <= width) break
    chosen = layout(chosen.columns.filter((column) => column.drop !== level))
  }
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 && !chosen.columns[i]!.right
          ? cell
          : pad(cell, chosen.widths[i]!, chosen.columns[i]!.right)
      )
      .join("  ")
      .trimEnd()

  const host =
    frame.host === null
      ? ""
      : `  host cpu ${frame.host.cpuPercent.toFixed(0)}%  mem ${humanBytes(frame.host.memoryUsed)} / ${humanBytes(frame.host.memoryTotal)}`
  const online = frame.rows.filter((row) => row.status === "online").length
  const title = `${p.bold("pmfx monit")}  ${online}/${frame.rows.length} online${host}`
  const help = p.dim(clock(frame.time))
  const gap = width - visibleLength(title) - visibleLength(help)
  const header = gap >= 2 ? `${title}${" ".repeat(gap)}${help}` : title

  const lines: Array<string> = [header]
  if (frame.error !== null) lines.push(p.red(`! ${frame.error}`))
  lines.push("")
  if (frame.rows.length === 0) {
    lines.push(p.dim("no processes: start one with `pmfx start <command|file>`"))
  } else {
    lines.push(p.inverse(pad(line(chosen.columns.map((column) => column.title)), width)))
    const room = height - lines.length
    const fits = frame.rows.length <= room ? frame.rows.length : Math.max(0, room - 1)
    for (const row of frame.rows.slice(0, fits)) lines.push(line(chosen.columns.map((column) => column.cell(row))))
    if (fits < frame.rows.length) lines.push(p.dim(`… ${frame.rows.length - fits} more (make the terminal taller)`))
  }
  return lines.slice(0, height).map((text) => truncateVisible(text, width))
}
