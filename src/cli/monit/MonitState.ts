/**
 * What `pmfx monit` knows and how it changes, as a pure reducer: every input — a key, a message of
 * the daemon's `/ws` feed, an HTTP answer — is a `MonitEvent`; `reduce` gives the next state and
 * the requests to make (`MonitCommand`), which the terminal shell (runMonit.ts) carries out and
 * whose answers come back as events. Nothing here touches the terminal or the network.
 */
import type { ProcessDetail } from "../../domain/ProcessDetail"
import type { ProcessStatus } from "../../domain/ProcessStatus"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import type { LogLevel, LogStream } from "../../logs/LogEntry"
import type { MonitHost } from "../monitView"
import type { Key } from "./keys"
import { emptyRing, pushRing, type RingBuffer, ringItems, ringOf } from "./ringBuffer"

/** Samples kept per process: 5 minutes of the daemon's 1 s samples. */
export const HISTORY_CAPACITY = 300
/** Log lines kept for the selected process. */
export const LOG_CAPACITY = 1000
/** Lines read back when a process is selected (then the feed follows). */
export const BACKLOG_LINES = 200
/** Lines a PageUp/PageDown scrolls the log pane by. */
export const LOG_PAGE = 10

export interface Sample {
  /** Epoch ms. */
  readonly at: number
  readonly cpu: number
  readonly memory: number
}

export interface LogLine {
  readonly timestamp: string | null
  readonly stream: LogStream
  readonly level: LogLevel
  readonly message: string
}

export interface LastExit {
  readonly code: number | null
  readonly signal: string | null
  /** Epoch ms when monit saw it; null when it comes from the daemon's record. */
  readonly at: number | null
}

export type Action = "restart" | "reload" | "stop" | "start"

export type Prompt =
  | { readonly _tag: "None" }
  | { readonly _tag: "Filter" }
  | { readonly _tag: "Confirm"; readonly action: Action; readonly app: string; readonly instances: number }

export type Connection =
  | { readonly _tag: "Connecting" }
  | { readonly _tag: "Live" }
  | { readonly _tag: "Down"; readonly reason: string }

export interface Notice {
  readonly text: string
  readonly tone: "info" | "error"
}

export interface MonitState {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** The selected row's id. */
  readonly selected: number | null
  /** The selected row's detail, once read. */
  readonly detail: ProcessDetail | null
  /** Exits seen on the feed, by row id. */
  readonly exits: Readonly<Record<number, LastExit>>
  readonly history: Readonly<Record<number, RingBuffer<Sample>>>
  readonly host: MonitHost | null
  /** Log lines of the row `logsFor` (the selected one). */
  readonly logs: RingBuffer<LogLine>
  readonly logsFor: number | null
  /** How many (filtered) lines the log pane is scrolled up from the newest; 0 follows. */
  readonly logScroll: number
  /** Log lines shown contain this text (any case); "" shows all. */
  readonly filter: string
  readonly prompt: Prompt
  readonly notice: Notice | null
  readonly connection: Connection
  readonly quit: boolean
}

export type MonitEvent =
  | { readonly _tag: "Key"; readonly key: Key }
  | { readonly _tag: "List"; readonly rows: ReadonlyArray<ProcessSummary> }
  | {
      readonly _tag: "Status"
      readonly id: number
      readonly status: ProcessStatus
      readonly pid: number | null
      readonly exit: { readonly code: number | null; readonly signal: string | null } | null
      readonly at: number
    }
  | {
      readonly _tag: "Metrics"
      readonly at: number
      readonly processes: ReadonlyArray<{
        readonly id: number
        readonly cpu_usage: number
        readonly memory_usage: number
        readonly uptime: string
        readonly restarts: number
      }>
    }
  | { readonly _tag: "Host"; readonly host: MonitHost }
  /** New lines of a row, oldest first (the shell joins lines that arrive together into one event). */
  | { readonly _tag: "Log"; readonly id: number; readonly lines: ReadonlyArray<LogLine> }
  | { readonly _tag: "Backlog"; readonly id: number; readonly lines: ReadonlyArray<LogLine> }
  | { readonly _tag: "Detail"; readonly detail: ProcessDetail }
  | { readonly _tag: "History"; readonly id: number; readonly samples: ReadonlyArray<Sample> }
  | { readonly _tag: "Connection"; readonly connection: Connection }
  | { readonly _tag: "ActionDone"; readonly notice: Notice }
  /** Time passes: the detail (health, ports) is read again. */
  | { readonly _tag: "Tick" }

export type MonitCommand =
  /** Follow this row: its log lines on the feed, its last lines, detail and metrics history. */
  | { readonly _tag: "Follow"; readonly id: number }
  | { readonly _tag: "FetchDetail"; readonly id: number }
  | { readonly _tag: "Act"; readonly action: Action; readonly app: string }

export interface Step {
  readonly state: MonitState
  readonly commands: ReadonlyArray<MonitCommand>
}

export const initialMonitState: MonitState = {
  rows: [],
  selected: null,
  detail: null,
  exits: {},
  history: {},
  host: null,
  logs: emptyRing(LOG_CAPACITY),
  logsFor: null,
  logScroll: 0,
  filter: "",
  prompt: { _tag: "None" },
  notice: null,
  connection: { _tag: "Connecting" },
  quit: false
}

export const selectedRow = (state: MonitState): ProcessSummary | undefined =>
  state.rows.find((row) => row.id === state.selected)

export const matchesFilter = (line: LogLine, filter: string): boolean =>
  filter === "" || line.message.toLowerCase().includes(filter.toLowerCase())

/** The log lines the pane shows, oldest first. */
export const visibleLogs = (state: MonitState): Array<LogLine> =>
  ringItems(state.logs).filter((line) => matchesFilter(line, state.filter))

/** The last exit of a row: seen on the feed, else the daemon's record of it. */
export const lastExitOf = (state: MonitState, id: number): LastExit | null => {
  const seen = state.exits[id]
  if (seen !== undefined) return seen
  const recorded = state.detail?.id === id ? state.detail.last_exit : null
  return recorded === null || recorded === undefined
    ? null
    : { code: recorded.code, signal: recorded.signal, at: recorded.at === null ? null : Date.parse(recorded.at) }
}

const unchanged = (state: MonitState): Step => ({ state, commands: [] })

/** Makes `id` the selected row: its logs start afresh and it is followed. */
const select = (state: MonitState, id: number | null): Step => {
  if (id === state.selected) return unchanged(state)
  const next: MonitState = {
    ...state,
    selected: id,
    detail: null,
    logs: emptyRing(LOG_CAPACITY),
    logsFor: id,
    logScroll: 0
  }
  return { state: next, commands: id === null ? [] : [{ _tag: "Follow", id }] }
}

const moveSelection = (state: MonitState, by: number | "first" | "last"): Step => {
  if (state.rows.length === 0) return unchanged(state)
  const current = state.rows.findIndex((row) => row.id === state.selected)
  const index =
    by === "first"
      ? 0
      : by === "last"
        ? state.rows.length - 1
        : Math.min(state.rows.length - 1, Math.max(0, (current === -1 ? 0 : current) + by))
  return select(state, state.rows[index]!.id)
}

const instancesOf = (state: MonitState, app: string) => state.rows.filter((row) => row.name === app).length

const confirm = (state: MonitState, action: Action): Step => {
  const row = selectedRow(state)
  if (row === undefined) return unchanged({ ...state, notice: { text: "no process selected", tone: "error" } })
  return unchanged({
    ...state,
    prompt: { _tag: "Confirm", action, app: row.name, instances: instancesOf(state, row.name) }
  })
}

const ACTION_KEYS: Readonly<Record<string, Action>> = { r: "restart", R: "reload", s: "stop", S: "start" }

const scrollLogs = (state: MonitState, by: number): Step => {
  const most = Math.max(0, visibleLogs(state).length - 1)
  return unchanged({ ...state, logScroll: Math.min(most, Math.max(0, state.logScroll + by)) })
}

const onKey = (before: MonitState, key: Key): Step => {
  if (key._tag === "CtrlC") return unchanged({ ...before, quit: true })
  const state: MonitState = { ...before, notice: null }
  const prompt = state.prompt
  if (prompt._tag === "Filter") {
    switch (key._tag) {
      case "Char":
        return unchanged({ ...state, filter: state.filter + key.char, logScroll: 0 })
      case "Backspace":
        return unchanged({ ...state, filter: state.filter.slice(0, -1), logScroll: 0 })
      case "Enter":
        return unchanged({ ...state, prompt: { _tag: "None" } })
      case "Escape":
        return unchanged({ ...state, filter: "", prompt: { _tag: "None" }, logScroll: 0 })
      default:
        return unchanged(state)
    }
  }
  if (prompt._tag === "Confirm") {
    const none: Prompt = { _tag: "None" }
    if (key._tag === "Char" && (key.char === "y" || key.char === "Y")) {
      return {
        state: { ...state, prompt: none, notice: { text: `${prompt.action}: ${prompt.app}…`, tone: "info" } },
        commands: [{ _tag: "Act", action: prompt.action, app: prompt.app }]
      }
    }
    return unchanged({ ...state, prompt: none, notice: { text: `${prompt.action} cancelled`, tone: "info" } })
  }
  switch (key._tag) {
    case "Up":
      return moveSelection(state, -1)
    case "Down":
      return moveSelection(state, 1)
    case "Home":
      return moveSelection(state, "first")
    case "End":
      return moveSelection(state, "last")
    case "PageUp":
      return scrollLogs(state, LOG_PAGE)
    case "PageDown":
      return scrollLogs(state, -LOG_PAGE)
    case "Escape":
      return unchanged({ ...state, filter: "", logScroll: 0 })
    case "Char": {
      const action = ACTION_KEYS[key.char]
      if (action !== undefined) return confirm(state, action)
      switch (key.char) {
        case "q":
        case "Q":
          return unchanged({ ...state, quit: true })
        case "k":
          return moveSelection(state, -1)
        case "j":
          return moveSelection(state, 1)
        case "/":
          return unchanged({ ...state, prompt: { _tag: "Filter" } })
        case "f":
          // Back to following the newest lines.
          return unchanged({ ...state, logScroll: 0 })
        default:
          return unchanged(state)
      }
    }
    default:
      return unchanged(state)
  }
}

const logKey = (line: LogLine) => `${line.timestamp ?? ""}\u0000${line.stream}\u0000${line.message}`

export const reduce = (state: MonitState, event: MonitEvent): Step => {
  switch (event._tag) {
    case "Key":
      return onKey(state, event.key)
    case "List": {
      const rows = [...event.rows].sort((a, b) => a.id - b.id)
      const withRows: MonitState = { ...state, rows }
      if (rows.length === 0) return select(withRows, null)
      if (rows.some((row) => row.id === state.selected)) return unchanged(withRows)
      // The selected row is gone (or none was selected): the row now at its place.
      const index = Math.max(
        0,
        state.rows.findIndex((row) => row.id === state.selected)
      )
      return select(withRows, rows[Math.min(index, rows.length - 1)]!.id)
    }
    case "Status": {
      const rows = state.rows.map((row) =>
        row.id === event.id ? { ...row, status: event.status, pid: event.pid } : row
      )
      const exited = event.exit !== null && (event.exit.code !== null || event.exit.signal !== null)
      const exits = exited
        ? { ...state.exits, [event.id]: { code: event.exit!.code, signal: event.exit!.signal, at: event.at } }
        : state.exits
      return {
        state: { ...state, rows, exits },
        commands: event.id === state.selected ? [{ _tag: "FetchDetail", id: event.id }] : []
      }
    }
    case "Metrics": {
      const byId = new Map(event.processes.map((sample) => [sample.id, sample]))
      const rows = state.rows.map((row) => {
        const sample = byId.get(row.id)
        return sample === undefined
          ? row
          : {
              ...row,
              cpu_usage: sample.cpu_usage,
              memory_usage: sample.memory_usage,
              uptime: sample.uptime,
              restarts: sample.restarts
            }
      })
      const history: Record<number, RingBuffer<Sample>> = {}
      for (const row of rows) {
        const sample = byId.get(row.id)
        const ring = state.history[row.id] ?? emptyRing<Sample>(HISTORY_CAPACITY)
        history[row.id] =
          sample === undefined
            ? ring
            : pushRing(ring, { at: event.at, cpu: sample.cpu_usage, memory: sample.memory_usage })
      }
      return unchanged({ ...state, rows, history })
    }
    case "Host":
      return unchanged({ ...state, host: event.host })
    case "Log": {
      if (event.id !== state.logsFor) return unchanged(state)
      // A pane scrolled back stays on the lines it shows.
      const logScroll =
        state.logScroll > 0
          ? state.logScroll + event.lines.filter((line) => matchesFilter(line, state.filter)).length
          : 0
      return unchanged({ ...state, logs: pushRing(state.logs, ...event.lines), logScroll })
    }
    case "Backlog": {
      if (event.id !== state.logsFor) return unchanged(state)
      // Lines that came on the feed while the backlog was read are in both: keep one of each.
      const known = new Set(event.lines.map(logKey))
      const live = ringItems(state.logs).filter((line) => !known.has(logKey(line)))
      return unchanged({ ...state, logs: ringOf(LOG_CAPACITY, [...event.lines, ...live]) })
    }
    case "Detail": {
      if (event.detail.id !== state.selected) return unchanged(state)
      const detail = event.detail
      const rows = state.rows.map((row) =>
        row.id === detail.id ? { ...row, health_status: detail.health_status, port: detail.port } : row
      )
      return unchanged({ ...state, rows, detail })
    }
    case "History": {
      // The daemon's last minute goes before the samples monit received itself.
      const own = ringItems(state.history[event.id] ?? emptyRing<Sample>(HISTORY_CAPACITY))
      const first = own[0]?.at ?? Number.POSITIVE_INFINITY
      const older = event.samples.filter((sample) => sample.at < first - 500)
      return unchanged({
        ...state,
        history: { ...state.history, [event.id]: ringOf(HISTORY_CAPACITY, [...older, ...own]) }
      })
    }
    case "Connection": {
      const next = { ...state, connection: event.connection }
      // Back after a break: read again what the break may have hidden (lines are merged, not doubled).
      const back = event.connection._tag === "Live" && state.connection._tag === "Down" && state.selected !== null
      return { state: next, commands: back ? [{ _tag: "Follow", id: state.selected! }] : [] }
    }
    case "ActionDone":
      return unchanged({ ...state, notice: event.notice })
    case "Tick":
      return { state, commands: state.selected === null ? [] : [{ _tag: "FetchDetail", id: state.selected }] }
  }
}
