/**
 * The API's own traffic, for `GET /metrics` (docs/metrics.md): requests answered by method, route
 * and status, and the WebSocket sessions open now — on every listener of the daemon (socket and
 * TCP). `countTraffic` is the outermost middleware of each listener, so it also counts the 401,
 * 403 and 404 answers `webGuard` gives before the API runs.
 *
 * The route is the endpoint's path template (`/api/processes/:id`), never the path as sent: an id
 * or a name in a label would make a new series per process and a scanner's random paths would
 * make one each. A path no route matches is counted as `route="unmatched"`. A WebSocket session is
 * counted with status 101 when it ends; a request whose client left before the answer, as 499.
 */
import { HttpServerRequest } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect, Exit } from "effect"
import { API_ROUTES } from "../shared/apiRoutes"
import { WEBSOCKET_PATH } from "../api/websocket/webSocketRoute"

export const UNMATCHED_ROUTE = "unmatched"

/** The route templates, split in segments (`:name` matches any one segment). */
const templates: ReadonlyArray<{ readonly route: string; readonly segments: ReadonlyArray<string> }> = (() => {
  const routes = new Set<string>([WEBSOCKET_PATH, "/api/openapi.json"])
  for (const { path } of API_ROUTES) routes.add(path)
  // Literal routes first, so `/api/processes/:id` never takes what a fixed path names.
  return [...routes]
    .map((route) => ({ route, segments: route.split("/").filter((s) => s !== "") }))
    .sort(
      (a, b) => a.segments.filter((s) => s.startsWith(":")).length - b.segments.filter((s) => s.startsWith(":")).length
    )
})()

/** The route template a request path falls under (query left out), or `unmatched`. */
export const routeOf = (url: string): string => {
  const segments = (url.split("?")[0] ?? "").split("/").filter((s) => s !== "")
  for (const template of templates) {
    if (template.segments.length !== segments.length) continue
    let matches = true
    for (let i = 0; i < segments.length; i++) {
      const expected = template.segments[i]!
      if (!expected.startsWith(":") && expected !== segments[i]) {
        matches = false
        break
      }
    }
    if (matches) return template.route
  }
  return UNMATCHED_ROUTE
}

export interface RequestCount {
  readonly method: string
  readonly route: string
  readonly status: number
  readonly count: number
}

/** Methods kept as they are; anything else is counted as `OTHER` (a client chooses the method). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])

export class ApiTraffic extends Effect.Service<ApiTraffic>()("pmfx/ApiTraffic", {
  sync: () => {
    const requests = new Map<string, { method: string; route: string; status: number; count: number }>()
    let openWebSockets = 0

    const record = (method: string, route: string, status: number): void => {
      const key = `${method} ${route} ${status}`
      const found = requests.get(key)
      if (found !== undefined) found.count++
      else requests.set(key, { method, route, status, count: 1 })
    }

    /** Wraps a listener's whole app: counts each answer, and a `/ws` session while it is open. */
    const countTraffic = <E, R>(
      app: HttpApp.Default<E, R>
    ): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const method = KNOWN_METHODS.has(request.method) ? request.method : "OTHER"
        const route = routeOf(request.url)
        // The handler of an upgraded /ws request runs as long as the session is open.
        const session = route === WEBSOCKET_PATH && request.headers["upgrade"]?.toLowerCase() === "websocket"
        if (session) openWebSockets++
        return yield* app.pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (session) openWebSockets--
              // A session that ran (the handler's empty answer after the close, or an interruption
              // when the socket went) had a 101 handshake; a refused one keeps its 401/403. Any other
              // request fails only when its client left before the answer (499, as nginx counts it).
              const status = Exit.isSuccess(exit) ? exit.value.status : 499
              record(method, route, session && (status === 204 || status === 499) ? 101 : status)
            })
          )
        )
      })

    return {
      countTraffic,
      requests: (): ReadonlyArray<RequestCount> => [...requests.values()].map((entry) => ({ ...entry })),
      openWebSockets: (): number => openWebSockets
    } as const
  }
}) {}
