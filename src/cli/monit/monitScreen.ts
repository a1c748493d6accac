/**
 * What `pmfx monit` draws, as a pure function of its state and the terminal's size: exactly
 * `height` lines, none wider than `width` (docs/cli.md, `monit`):
 *
 *   header      counts, host load, connection, clock
 *   processes   the table with the selected row marked    │  details of the selected row + sparklines
 *   logs        the selected row's lines (filtered)
 *   footer      keys, a prompt (filter, confirmation) or the last action's outcome
 *
 * Below 100 columns the details go under the table, shorter.
 */
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { humanBytes } from "../../domain/Size"
import { truncateVisible, visibleLength } from "../monitView"
import {
  type LastExit,
  lastExitOf,
  type LogLine,
  type MonitState,
  type Sample,
  selectedRow,
  visibleLogs
} from "./MonitState"
import { ringItems } from "./ringBuffer"
import { sparkline } from "./sparkline"

export interface ScreenSize {
  readonly width: number
  readonly height: number
}

export interface ScreenOptions {
  readonly color: boolean
  /** Epoch ms, for the clock. */
  readonly now: number
}

/** Widths from this one up put the details beside the table. */
export const WIDE = 100

const painter = (color: boolean) => {
  const paint = (open: string, close: string) => (text: string) =>
    color && text !== "" ? `\u001b[${open}m${text}\u001b[${close}m` : text
  return {
    bold: paint("1", "22"),
    dim: paint("2", "22"),
    red: paint("31", "39"),
    green: paint("32", "39"),
    yellow: paint("33", "39"),
    cyan: paint("36", "39"),
    inverse: paint("7", "27")
  }
}
type Painter = ReturnType<typeof painter>

const pad = (text: string, width: number, right = false) => {
  const cut = truncateVisible(text, width)
  const fill = " ".repeat(Math.max(0, width - visibleLength(cut)))
  return right ? fill + cut : cut + fill
}

/** An app's own output, made safe to draw: its colors and control characters would break the screen. */
export const printable = (text: string): string =>
  text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/\t/g, "  ")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, "")

const clock = (epochMs: number) => new Date(epochMs).toTimeString().slice(0, 8)

const shortUptime = (uptime: string) => uptime.replace(/^(0[hm] )+/, "")

export const displayName = (rows: ReadonlyArray<ProcessSummary>, row: ProcessSummary): string =>
  rows.some((other) => other.name === row.name && other.id !== row.id) ? `${row.name}[${row.instance}]` : row.name

const statusColor = (p: Painter, status: string) =>
  (status === "online" ? p.green : status === "errored" ? p.red : status === "stopped" ? p.dim : p.yellow)(status)

const running = (row: ProcessSummary) => row.pid !== null

// ---------------------------------------------------------------------------------------------
// The process table

interface Column {
  readonly title: string
  readonly width: number
  readonly right: boolean
  readonly cell: (row: ProcessSummary) => string
}

const tableColumns = (state: MonitState, p: Painter, width: number): ReadonlyArray<Column> => {
  const nameWidth = Math.min(24, Math.max(4, ...state.rows.map((row) => displayName(state.rows, row).length)))
  const all: Array<Column & { readonly drop: number }> = [
    { title: "Name", width: nameWidth, right: false, drop: 0, cell: (row) => displayName(state.rows, row) },
    { title: "Status", width: 10, right: false, drop: 0, cell: (row) => statusColor(p, row.status) },
    {
      title: "CPU",
      width: 6,
      right: true,
      drop: 0,
      cell: (row) => (running(row) ? `${row.cpu_usage.toFixed(1)}%` : "-")
    },
    {
      title: "Memory",
      width: 9,
      right: true,
      drop: 0,
      cell: (row) => (running(row) && row.memory_usage > 0 ? humanBytes(row.memory_usage) : "-")
    },
    { title: "↺", width: 3, right: true, drop: 2, cell: (row) => String(row.restarts) },
    { title: "Uptime", width: 7, right: true, drop: 1, cell: (row) => (running(row) ? shortUptime(row.uptime) : "-") }
  ]
  // The marker column and one space between columns.
  const total = (columns: ReadonlyArray<Column>) => 2 + columns.reduce((sum, column) => sum + column.width + 1, 0)
  let columns: ReadonlyArray<Column & { readonly drop: number }> = all
  for (const level of [1, 2]) if (total(columns) > width) columns = columns.filter((column) => column.drop !== level)
  return columns
}

/** The width the table wants (the wide layout gives it that much, up to about half the screen). */
const tableWidth = (columns: ReadonlyArray<Column>) => 2 + columns.reduce((sum, column) => sum + column.width + 1, 0)

const renderTable = (state: MonitState, p: Painter, width: number, height: number): Array<string> => {
  if (height <= 0) return []
  if (state.rows.length === 0) return [p.dim("no processes: start one with `pmfx start <command|file>`")]
  const columns = tableColumns(state, p, width)
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => pad(cell, columns[i]!.width, columns[i]!.right)).join(" ")
  const lines = [p.dim(`  ${line(columns.map((column) => column.title))}`)]
  // A window of rows that keeps the selected one in view.
  const room = Math.max(1, height - 1)
  const selected = Math.max(
    0,
    state.rows.findIndex((row) => row.id === state.selected)
  )
  const first = Math.min(Math.max(0, selected - room + 1), Math.max(0, state.rows.length - room))
  for (const row of state.rows.slice(first, first + room)) {
    const text = line(columns.map((column) => column.cell(row)))
    lines.push(row.id === state.selected ? p.inverse(pad(`▸ ${text}`, width)) : `  ${text}`)
  }
  return lines
}

// ---------------------------------------------------------------------------------------------
// The details of the selected row

const describeExit = (exit: LastExit | null): string => {
  if (exit === null) return "none yet"
  const parts = [exit.code === null ? null : `code ${exit.code}`, exit.signal].filter((part) => part !== null)
  return `${parts.length === 0 ? "ended" : parts.join(", ")}${exit.at === null ? "" : ` at ${clock(exit.at)}`}`
}

const sparkRows = (samples: ReadonlyArray<Sample>, p: Painter, width: number): Array<string> => {
  const cpu = samples.map((sample) => sample.cpu)
  const memory = samples.map((sample) => sample.memory)
  const peakCpu = Math.max(0, ...cpu)
  const lowMemory = Math.min(...memory)
  const peakMemory = Math.max(0, ...memory)
  const lastCpu = cpu.at(-1)
  const lastMemory = memory.at(-1)
  const cpuText = lastCpu === undefined ? "-" : `${lastCpu.toFixed(1)}% peak ${peakCpu.toFixed(0)}%`
  const memoryText =
    lastMemory === undefined ? "-" : `${humanBytes(lastMemory)} (${humanBytes(lowMemory)}–${humanBytes(peakMemory)})`
  const textWidth = Math.max(cpuText.length, memoryText.length)
  const graph = Math.max(0, width - 5 - textWidth - 1)
  const seconds = samples.length < 2 ? 0 : Math.round((samples.at(-1)!.at - samples[0]!.at) / 1000)
  const span = seconds === 0 ? "" : ` over ${seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)} min`}`
  // CPU from 0 to its peak (at least 10%, so that idle noise stays flat); memory between its low
  // and its peak, which the text gives: a slow leak shows as a rising line.
  const memoryGraph = sparkline(
    memory.map((value) => value - lowMemory),
    graph,
    peakMemory - lowMemory
  )
  return [
    `${p.dim("cpu")}  ${p.cyan(sparkline(cpu, graph, Math.max(10, peakCpu)))} ${cpuText}`,
    `${p.dim("mem")}  ${p.cyan(memoryGraph)} ${memoryText}`,
    ...(span === "" ? [] : [p.dim(`     ${samples.length} samples${span}`)])
  ]
}

const renderDetails = (state: MonitState, p: Painter, width: number, compact: boolean): Array<string> => {
  const row = selectedRow(state)
  if (row === undefined) return []
  const detail = state.detail?.id === row.id ? state.detail : null
  const label = (text: string) => p.dim(text.padEnd(10))
  const health =
    row.health_status === "none"
      ? "no check"
      : row.health_status === "unhealthy"
        ? p.red("unhealthy")
        : row.health_status
  const response = detail?.health_check.response_time
  const ports = row.port ?? detail?.config.port ?? "-"
  const title = `${p.bold(displayName(state.rows, row))} ${p.dim(`id ${row.id} · ${row.namespace}`)}  ${statusColor(p, row.status)}`
  const exit = describeExit(lastExitOf(state, row.id))
  const samples = ringItems(state.history[row.id] ?? { capacity: 1, slots: [], start: 0, size: 0 })
  const script =
    detail === null
      ? "…"
      : detail.config.shell === null
        ? [detail.config.script, ...detail.config.args].join(" ")
        : detail.config.script
  // Where the app was defined: the ecosystem file to edit (and `pmfx apply`), or the command line.
  const config = detail === null ? "…" : (detail.config.config_file ?? p.dim("command line (no file)"))
  if (compact) {
    return [
      `${title}  ${label("pid")}${row.pid ?? "-"}  ${p.dim("port")} ${ports}  ${p.dim("health")} ${health}`,
      `${label("uptime")}${running(row) ? shortUptime(row.uptime) : "-"}  ${p.dim("restarts")} ${row.restarts}  ${p.dim("last exit")} ${exit}`,
      `${label("script")}${script}`,
      `${label("config")}${config}`,
      ...sparkRows(samples, p, width).slice(0, 2)
    ]
  }
  return [
    title,
    `${label("pid")}${String(row.pid ?? "-").padEnd(10)} ${p.dim("port")} ${ports}`,
    `${label("health")}${health}${response === null || response === undefined ? "" : p.dim(` (${response} ms)`)}`,
    `${label("uptime")}${(running(row) ? shortUptime(row.uptime) : "-").padEnd(10)} ${p.dim("restarts")} ${row.restarts}`,
    `${label("last exit")}${exit}`,
    `${label("script")}${script}`,
    `${label("cwd")}${detail?.config.cwd ?? "…"}`,
    `${label("config")}${config}`,
    ...sparkRows(samples, p, width)
  ]
}

// ---------------------------------------------------------------------------------------------
// Logs, header, footer

const levelColor = (p: Painter, line: LogLine) =>
  line.level === "error" || line.level === "fatal"
    ? p.red
    : line.level === "warn"
      ? p.yellow
      : line.level === "debug" || line.level === "trace"
        ? p.dim
        : (text: string) => text

const renderLogLine = (line: LogLine, p: Painter): string => {
  const time = line.timestamp === null ? "        " : clock(Date.parse(line.timestamp))
  const stream = line.stream === "err" ? p.red("err") : p.dim("out")
  return `${p.dim(time)} ${stream} ${levelColor(p, line)(printable(line.message))}`
}

const rule = (title: string, width: number, p: Painter) => {
  const head = `─ ${title} `
  return p.dim(head) + p.dim("─".repeat(Math.max(0, width - visibleLength(head))))
}

const renderLogs = (state: MonitState, p: Painter, width: number, height: number): Array<string> => {
  if (height <= 0) return []
  const row = selectedRow(state)
  const lines = visibleLogs(state)
  const scroll = Math.min(state.logScroll, Math.max(0, lines.length - 1))
  const about = [
    row === undefined ? "Logs" : `Logs: ${displayName(state.rows, row)}`,
    state.filter === "" ? null : `filter "${state.filter}" (${lines.length} lines)`,
    scroll === 0 ? null : `${scroll} newer below (f follows)`
  ].filter((part) => part !== null)
  const out = [rule(about.join(" · "), width, p)]
  const room = height - 1
  const end = lines.length - scroll
  const shown = lines.slice(Math.max(0, end - room), end).map((line) => renderLogLine(line, p))
  if (shown.length === 0 && room > 0) {
    out.push(
      p.dim(
        row === undefined
          ? ""
          : state.filter !== ""
            ? `no line contains "${state.filter}" (Esc clears the filter)`
            : "no lines yet: the app's output shows here as it is written"
      )
    )
  }
  return [...out, ...shown]
}

const renderHeader = (state: MonitState, p: Painter, width: number, now: number): string => {
  const online = state.rows.filter((row) => row.status === "online").length
  const host =
    state.host === null
      ? ""
      : `  ${p.dim("host")} cpu ${state.host.cpuPercent.toFixed(0)}%  mem ${humanBytes(state.host.memoryUsed)} / ${humanBytes(state.host.memoryTotal)}`
  const left = `${p.bold("pmfx monit")}  ${online}/${state.rows.length} online${host}`
  const connection =
    state.connection._tag === "Live"
      ? p.green("● live")
      : state.connection._tag === "Connecting"
        ? p.yellow("○ connecting…")
        : p.red(`✕ ${state.connection.reason}; retrying`)
  const right = `${connection}  ${p.dim(clock(now))}`
  const gap = width - visibleLength(left) - visibleLength(right)
  return gap >= 2 ? `${left}${" ".repeat(gap)}${right}` : `${left}  ${right}`
}

const KEYS_HELP = "↑↓/jk select  / filter  r restart  R reload  s stop  S start  PgUp/PgDn scroll  q quit"

const renderFooter = (state: MonitState, p: Painter): string => {
  const prompt = state.prompt
  if (prompt._tag === "Filter")
    return `${p.bold("/")} ${state.filter}${p.inverse(" ")}  ${p.dim("type to filter the log lines · Enter keeps · Esc clears")}`
  if (prompt._tag === "Confirm") {
    const what = prompt.instances > 1 ? `${prompt.app} (${prompt.instances} instances)` : prompt.app
    const verb = prompt.action[0]!.toUpperCase() + prompt.action.slice(1)
    return p.yellow(p.bold(`${verb} ${what}? y/n`))
  }
  if (state.notice !== null)
    return state.notice.tone === "error" ? p.red(state.notice.text) : p.green(state.notice.text)
  return p.dim(KEYS_HELP)
}

/** The screen, line by line. */
export const renderScreen = (state: MonitState, size: ScreenSize, options: ScreenOptions): Array<string> => {
  const p = painter(options.color)
  const width = Math.max(1, size.width)
  const height = Math.max(1, size.height)
  const lines: Array<string> = [renderHeader(state, p, width, options.now)]
  // Header and footer take a line each; the logs keep at least a third of what is left.
  const body = Math.max(0, height - 2)
  const topRoom = Math.max(0, body - Math.max(3, Math.ceil(body / 3)))
  if (width >= WIDE) {
    const details = renderDetails(state, p, 0, false)
    // (With no rows, the table is one sentence: room for it.)
    const listWidth = Math.min(
      Math.floor(width * 0.55),
      Math.max(state.rows.length === 0 ? 58 : 40, tableWidth(tableColumns(state, p, width)))
    )
    const detailWidth = width - listWidth - 3
    const detailLines = renderDetails(state, p, detailWidth, false)
    const top = Math.min(topRoom, Math.max(state.rows.length + 1, details.length))
    const table = renderTable(state, p, listWidth, top)
    for (let i = 0; i < top; i++)
      lines.push(
        `${pad(table[i] ?? "", listWidth)} ${p.dim("│")} ${truncateVisible(detailLines[i] ?? "", detailWidth)}`
      )
  } else {
    const detailLines = renderDetails(state, p, width, true)
    const tableRoom = Math.max(0, Math.min(state.rows.length + 1, topRoom - detailLines.length - 1))
    lines.push(...renderTable(state, p, width, Math.max(Math.min(2, topRoom), tableRoom)))
    if (detailLines.length > 0 && lines.length + detailLines.length + 1 <= 1 + topRoom)
      lines.push(rule("Details", width, p), ...detailLines)
  }
  const logsRoom = height - 1 - lines.length
  lines.push(...renderLogs(state, p, width, logsRoom))
  while (lines.length < height - 1) lines.push("")
  const screen = [...lines.slice(0, height - 1), renderFooter(state, p)].slice(-height)
  // The last column of the last line is left empty: writing there makes some terminals scroll.
  return screen.map((line, i) => truncateVisible(line, i === screen.length - 1 ? width - 1 : width))
}
