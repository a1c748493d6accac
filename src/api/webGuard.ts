/**
 * What the TCP listener does around every request that the unix socket does not need (docs/api.md):
 * daemon control routes do not exist on TCP (404); on a loopback listener the `Host` header must
 * name a loopback host (DNS rebinding); a foreign `Origin` may not change anything (403); and when
 * a key is configured every route but `GET /` needs it, in any of the three header forms
 * (read here, not through `HttpApiSecurity`, so the 401/403 bodies are exact). The read-only key
 * may only read, and its requests run with `ReadOnlyRequest` set. Keys are compared in constant
 * time and never logged; `verbose` logs method, path, status and time of each request.
 *
 * `GET /ws` is public (docs/api.md §8) but guarded like a mutating route against foreign origins (a
 * browser opens WebSockets across sites without CORS); with a key configured and none in its
 * headers, the session asks for `{type:"auth", key}` first (`WebSocketKeyCheck`).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import * as crypto from "node:crypto"
import type { IncomingMessage } from "node:http"
import type { WebSettings } from "../daemon/StateFile"
import { ReadOnlyRequest } from "./readOnly"
import { isDashboardRequest } from "./dashboard/dashboardAssets"
import { WebSocketKeyCheck } from "./websocket/WebSocketKeyCheck"
import { WEBSOCKET_PATH } from "./websocket/webSocketRoute"

const METRICS_PATH = "/metrics"

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"]

export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "")
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h) || h.endsWith(".localhost")
}

/** `host` as it appears in a URL (IPv6 addresses in brackets). */
export const hostForUrl = (host: string): string => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)

export const listenerUrl = (host: string, port: number): string => `http://${hostForUrl(host)}:${port}`

const digest = (key: string): Buffer => crypto.createHash("sha256").update(key, "utf8").digest()

/** `WWW-Authenticate` names the scheme a client should answer with (RFC 9110 §11.6.1). */
const unauthorized = () =>
  HttpServerResponse.unsafeJson(
    { error: "unauthorized", message: "Invalid or missing API key" },
    { status: 401, headers: { "www-authenticate": 'Bearer realm="pmfx"' } }
  )
const forbidden = (message: string) => HttpServerResponse.unsafeJson({ error: "forbidden", message }, { status: 403 })

const isRead = (method: string) => method === "GET" || method === "HEAD"

/** The path without its query, %-decoded when possible, for the daemon-route check. */
const decodedPath = (url: string): string => {
  const raw = url.split("?")[0] ?? "/"
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

type Role = "full" | "read-only"

/** Every `Authorization` and `X-API-Key` header of a request, each as sent. */
interface KeyHeaders {
  readonly authorization: ReadonlyArray<string>
  readonly apiKey: ReadonlyArray<string>
}

/**
 * Node joins repeated `X-API-Key` headers with ", " and keeps only the first `Authorization`, so
 * the key headers are read one by one from the Node request: each must carry a valid key (docs/api.md), and two copies of the right key are not one wrong key.
 */
const keyHeadersOf = (request: HttpServerRequest.HttpServerRequest): KeyHeaders => {
  const distinct = (NodeHttpServerRequest.toIncomingMessage(request) as Partial<IncomingMessage> | undefined)
    ?.headersDistinct
  if (distinct === undefined) {
    const one = (value: string | undefined) => (value === undefined ? [] : [value])
    return { authorization: one(request.headers["authorization"]), apiKey: one(request.headers["x-api-key"]) }
  }
  return { authorization: distinct["authorization"] ?? [], apiKey: distinct["x-api-key"] ?? [] }
}

/**
 * Headers on every answer of the TCP listener, which browsers reach: no content sniffing (a JSON
 * answer echoing user text must never be read as HTML), and API answers — they carry environments
 * and logs — kept out of browser and proxy caches unless the answer set its own policy (the
 * dashboard's files do).
 */
const withBrowserHeaders = (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.setHeaders(
    response,
    response.headers["cache-control"] === undefined
      ? { "x-content-type-options": "nosniff", "cache-control": "no-store" }
      : { "x-content-type-options": "nosniff" }
  )

export const webGuard = (settings: WebSettings) => {
  const fullKey = settings.apiKey === undefined ? undefined : digest(settings.apiKey)
  const readOnlyKey = settings.readOnlyApiKey === undefined ? undefined : digest(settings.readOnlyApiKey)
  const keyed = fullKey !== undefined || readOnlyKey !== undefined
  const loopback = isLoopbackHost(settings.host)
  const allowedHosts = new Set([
    ...LOOPBACK_NAMES.map((name) => `${name}:${settings.port}`),
    // A browser leaves the default port out of the Host header.
    ...(settings.port === 80 ? LOOPBACK_NAMES : [])
  ])
  const corsOrigins = new Set(settings.corsOrigins.map((origin) => origin.toLowerCase().replace(/\/+$/, "")))
  const ownOrigins = new Set([
    listenerUrl(settings.host, settings.port).toLowerCase(),
    ...(loopback ? LOOPBACK_NAMES.map((name) => `http://${name}:${settings.port}`) : [])
  ])

  /** The role of the keys a request presents: every key sent must be valid; none sent → null. */
  const roleOf = (headers: KeyHeaders): Role | null => {
    const presented: Array<string> = []
    for (const authorization of headers.authorization) {
      const match = /^(Bearer|ApiKey)\s+(.+)$/i.exec(authorization.trim())
      if (match === null) return null
      presented.push(match[2]!.trim())
    }
    for (const header of headers.apiKey) presented.push(header.trim())
    if (presented.length === 0) return null
    let role: Role = "full"
    for (const key of presented) {
      const hashed = digest(key)
      // Both comparisons always run, so the time taken does not tell which key matched.
      const isFull = fullKey !== undefined && crypto.timingSafeEqual(hashed, fullKey)
      const isReadOnly = readOnlyKey !== undefined && crypto.timingSafeEqual(hashed, readOnlyKey)
      if (!isFull && !isReadOnly) return null
      if (!isFull) role = "read-only"
    }
    return role
  }

  /** The role of a key if it is one of the configured ones (the WebSocket's `{type:"auth", key}`). */
  const roleOfKey = (key: string): Role | null => {
    const hashed = digest(key.trim())
    const isFull = fullKey !== undefined && crypto.timingSafeEqual(hashed, fullKey)
    const isReadOnly = readOnlyKey !== undefined && crypto.timingSafeEqual(hashed, readOnlyKey)
    return isFull ? "full" : isReadOnly ? "read-only" : null
  }

  return <E, R>(app: HttpApp.Default<E, R>) => {
    const guarded = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const method = request.method
      const path = decodedPath(request.url)
      if (loopback) {
        const host = (request.headers["host"] ?? "").toLowerCase()
        if (!allowedHosts.has(host))
          return forbidden("Access denied: the Host header does not name this loopback listener")
      }
      // The daemon control routes are served on the unix socket only.
      if (/^\/+daemon(\/|$)/i.test(path))
        return HttpServerResponse.unsafeJson({ success: false, error: `Not found: ${method} ${path}` }, { status: 404 })
      const origin = request.headers["origin"]?.toLowerCase().replace(/\/+$/, "")
      const allowedByCors = origin !== undefined && corsOrigins.has(origin)
      const isWebSocket = method === "GET" && path === WEBSOCKET_PATH
      // A page of another site must not drive the API — nor read the live feed, which a browser
      // would let it open without any CORS check.
      if (origin !== undefined && (!isRead(method) || isWebSocket) && !ownOrigins.has(origin) && !allowedByCors) {
        return forbidden(`Access denied: origin ${origin} is not allowed`)
      }
      if (method === "OPTIONS" && allowedByCors) {
        return HttpServerResponse.empty({
          status: 204,
          headers: {
            "access-control-allow-origin": origin!,
            "access-control-allow-methods": "GET, POST, PUT, DELETE",
            "access-control-allow-headers": "authorization, x-api-key, content-type",
            vary: "Origin"
          }
        })
      }
      const withCors = <A extends HttpServerResponse.HttpServerResponse>(response: A) =>
        allowedByCors
          ? HttpServerResponse.setHeaders(response, { "access-control-allow-origin": origin!, vary: "Origin" })
          : response
      // GET / and the dashboard's files (they hold no data; the page asks for the key) are public.
      if (!keyed || (method === "GET" && path === "/") || isDashboardRequest(method, path, request.headers["accept"]))
        return withCors(yield* app)
      // `--metrics-public`: Prometheus may scrape without a key (docs/metrics.md); nothing else opens.
      if (settings.metricsPublic === true && isRead(method) && path === METRICS_PATH) return withCors(yield* app)
      // The handshake is public (docs/api.md §8); without a key in its headers, the session asks for one
      // as its first message before any process data flows.
      const keyHeaders = keyHeadersOf(request)
      if (isWebSocket && keyHeaders.authorization.length === 0 && keyHeaders.apiKey.length === 0) {
        return yield* Effect.locally(app, WebSocketKeyCheck, { _tag: "FirstMessage", verify: roleOfKey })
      }
      const role = roleOf(keyHeaders)
      if (role === null) return withCors(unauthorized())
      if (role === "read-only" && !isRead(method)) return withCors(forbidden("Access denied: read-only API key"))
      const response = yield* role === "read-only" ? Effect.locally(app, ReadOnlyRequest, true) : app
      return withCors(response)
    })
    const hardened = Effect.map(guarded, withBrowserHeaders)
    if (!settings.verbose) return hardened
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = Date.now()
      const response = yield* hardened
      // Method, path and status only: never headers (they may carry a key) nor the query.
      yield* Effect.logInfo(
        `web ${request.method} ${request.url.split("?")[0]} ${response.status} ${Date.now() - started}ms`
      )
      return response
    })
  }
}
