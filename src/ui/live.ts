/**
 * The page's one `/ws` connection and the state it keeps current: the process rows, the latest
 * host statistics and the alerts seen since the page opened. No polling: everything arrives as
 * messages (docs/api.md §9). With a key, the first message proves it; the daemon answers `auth`
 * (with `read_only`) or closes with 4401.
 */
import type { ServerMessage, ServerMessageData } from "../api/websocket/ServerMessageData"
import type { ProcessSummary } from "../domain/ProcessSummary"

export type Row = { -readonly [K in keyof ProcessSummary]: ProcessSummary[K] } & {
  exit_code?: number | null
  signal?: string | null
}
export type LogLine = ServerMessageData["log"]
export type Alert = ServerMessageData["alert"] & { readonly timestamp: string }

export interface LiveState {
  rows: Map<number, Row>
  system: ServerMessageData["system_metrics"] | null
  alerts: Array<Alert>
  readOnly: boolean
  connected: boolean
}

export const state: LiveState = { rows: new Map(), system: null, alerts: [], readOnly: false, connected: false }

type Listener = (message: ServerMessage) => void
const listeners = new Set<Listener>()
export const onMessage = (listener: Listener): (() => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

let socket: WebSocket | null = null
let logIds: ReadonlyArray<number> | null = null

const apply = (message: ServerMessage): void => {
  switch (message.type) {
    case "process_list":
      state.rows = new Map(message.data.map((row) => [row.id, { ...row, ...lastExit(row.id) }]))
      break
    case "process_status": {
      const row = state.rows.get(message.data.id)
      if (row !== undefined) {
        row.status = message.data.status
        row.pid = message.data.pid
        if (message.data.exit_code !== undefined) row.exit_code = message.data.exit_code
        if (message.data.signal !== undefined) row.signal = message.data.signal
      }
      break
    }
    case "process_metrics": {
      for (const sample of message.data.processes) {
        const row = state.rows.get(sample.id)
        if (row === undefined) continue
        row.cpu_usage = sample.cpu_usage
        row.memory_usage = sample.memory_usage
        row.uptime = sample.uptime
        row.restarts = sample.restarts
      }
      break
    }
    case "system_metrics":
      state.system = message.data
      break
    case "alert":
      state.alerts = [{ ...message.data, timestamp: message.timestamp }, ...state.alerts].slice(0, 50)
      break
    case "auth":
      state.readOnly = message.data.read_only
      break
    default:
      break
  }
}

const lastExit = (id: number) => {
  const row = state.rows.get(id)
  return row === undefined ? {} : { exit_code: row.exit_code, signal: row.signal }
}

export interface ConnectHandlers {
  /** The daemon refused the key (close 4401). */
  readonly refused: (message: string) => void
  /** Connected (and authenticated) or disconnected; the page shows it. */
  readonly status: (connected: boolean) => void
}

/** Opens `/ws` (again after a drop, every 2 s) and proves `key` first when there is one. */
export const connect = (key: string | null, handlers: ConnectHandlers): void => {
  const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`
  const ws = new WebSocket(url)
  socket = ws
  let refusal = "That key was refused."
  ws.onopen = () => {
    if (key !== null) ws.send(JSON.stringify({ type: "auth", key }))
    if (logIds !== null) subscribeLogs(logIds)
  }
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as ServerMessage
    if (message.type === "error" && message.data.code === "UNAUTHORIZED") refusal = message.data.message
    if (message.type === "process_list" && !state.connected) {
      state.connected = true
      handlers.status(true)
    }
    apply(message)
    for (const listener of listeners) listener(message)
  }
  ws.onclose = (event) => {
    if (socket !== ws) return
    socket = null
    state.connected = false
    if (event.code === 4401) return handlers.refused(refusal)
    handlers.status(false)
    setTimeout(() => connect(key, handlers), 2000)
  }
}

export const disconnect = (): void => {
  const ws = socket
  socket = null
  state.connected = false
  ws?.close()
}

/** Log lines of these rows from now on (`null`: none); survives a reconnect. */
export const subscribeLogs = (ids: ReadonlyArray<number> | null): void => {
  logIds = ids
  if (socket === null || socket.readyState !== WebSocket.OPEN) return
  socket.send(
    JSON.stringify(
      ids === null ? { type: "unsubscribe", channels: ["logs"] } : { type: "subscribe", channels: ["logs"], ids }
    )
  )
}
