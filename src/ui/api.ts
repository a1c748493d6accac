/**
 * Calls to the daemon's HTTP API from the page, with the key (when there is one) in the
 * Authorization header — never in a URL. Errors come back as the API's own message.
 */
import type {
  ActionResult,
  AlertHistory,
  DeliveryHistory,
  EnvResult,
  LogsResponse,
  SystemInfo
} from "../shared/ApiSchemas"
import type { ProcessDetail } from "../domain/ProcessDetail"
import type { ProcessMetrics } from "../domain/ProcessMetrics"

type ActionResult_ = typeof ActionResult.Type
export type EnvRecord = typeof EnvResult.Type
export type LogsRecord = typeof LogsResponse.Type
export type SystemRecord = typeof SystemInfo.Type
export type AlertHistoryRecord = typeof AlertHistory.Type
export type DeliveryHistoryRecord = typeof DeliveryHistory.Type

export type Action = "start" | "stop" | "restart" | "reload" | "delete"

export class ApiError extends Error {
  /** The API's `error.details.suggestion` (what to do next), when it gives one. */
  constructor(
    message: string,
    readonly suggestion: string | null = null,
    /** The API's `error.code` (`PROCESS_ALREADY_RUNNING`, …), when it gives one. */
    readonly code: string | null = null
  ) {
    super(message)
  }
}

let apiKey: string | null = null
export const setApiKey = (key: string | null): void => {
  apiKey = key
}

const request = async (method: string, path: string): Promise<unknown> => {
  const headers: Record<string, string> = { accept: "application/json" }
  if (apiKey !== null) headers["authorization"] = `Bearer ${apiKey}`
  const response = await fetch(path, { method, headers, credentials: "omit", cache: "no-store" }).catch(() => {
    // The browser says only "Failed to fetch": say what it means here and what to do.
    throw new ApiError(
      `no answer from the daemon at ${location.host}: is it running? Any pmfx command on that machine (pmfx list) starts it again, with this listener`
    )
  })
  if (response.status === 204) return null
  const text = await response.text()
  let body: unknown = null
  try {
    body = JSON.parse(text)
  } catch {
    // Not JSON: the message is the text itself.
  }
  if (!response.ok)
    throw new ApiError(errorText(body) ?? `${response.status} ${text.slice(0, 200)}`, suggestionOf(body), codeOf(body))
  return body
}

/** `{success:false, error:{message}}` (structured) or `{error, message}` (the TCP guard's 401/403). */
const errorText = (body: unknown): string | null => {
  if (typeof body !== "object" || body === null) return null
  const record = body as { error?: unknown; message?: unknown }
  if (
    typeof record.error === "object" &&
    record.error !== null &&
    typeof (record.error as { message?: unknown }).message === "string"
  ) {
    return (record.error as { message: string }).message
  }
  if (typeof record.message === "string") return record.message
  if (typeof record.error === "string") return record.error
  return null
}

const suggestionOf = (body: unknown): string | null => {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : null
  const details = typeof error === "object" && error !== null ? (error as { details?: unknown }).details : null
  const suggestion =
    typeof details === "object" && details !== null ? (details as { suggestion?: unknown }).suggestion : null
  return typeof suggestion === "string" ? suggestion : null
}

const codeOf = (body: unknown): string | null => {
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : null
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : null
  return typeof code === "string" ? code : null
}

const segment = (id: number | string) => encodeURIComponent(String(id))

export const api = {
  /** 401 when the listener wants a key (and none or a wrong one was given). */
  probe: async (): Promise<number> => {
    const headers: Record<string, string> = { accept: "application/json" }
    if (apiKey !== null) headers["authorization"] = `Bearer ${apiKey}`
    return (await fetch("/api/status", { headers, credentials: "omit", cache: "no-store" })).status
  },
  action: (id: number, action: Action): Promise<ActionResult_ | null> =>
    request(
      action === "delete" ? "DELETE" : "POST",
      action === "delete" ? `/api/processes/${segment(id)}` : `/api/processes/${segment(id)}/${action}`
    ) as Promise<ActionResult_ | null>,
  detail: (id: number) => request("GET", `/api/processes/${segment(id)}`) as Promise<ProcessDetail>,
  env: (id: number) => request("GET", `/api/processes/${segment(id)}/env`) as Promise<EnvRecord>,
  metrics: (id: number) =>
    request("GET", `/api/processes/${segment(id)}/metrics?history=15m`) as Promise<ProcessMetrics>,
  logs: (id: number, query: Readonly<Record<string, string>>) =>
    request(
      "GET",
      `/api/processes/${segment(id)}/logs?${new URLSearchParams(query).toString()}`
    ) as Promise<LogsRecord>,
  system: () => request("GET", "/api/system") as Promise<SystemRecord>,
  /** The alerts the daemon kept (its last 100), newest first. */
  alerts: () => request("GET", "/api/alerts") as Promise<AlertHistoryRecord>,
  /** The webhook deliveries the daemon kept (its last 100), newest first, URLs redacted. */
  deliveries: () => request("GET", "/api/webhooks/deliveries") as Promise<DeliveryHistoryRecord>
}
