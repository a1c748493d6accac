/**
 * What the platform would otherwise answer with an empty body: an unknown route (404,
 * or 405 when the path exists with another method) gets the simple shape `{success:false, error}`;
 * a body that is not JSON gets BAD_REQUEST (400), a wrong content type 415, a body over 1 MiB 413;
 * anything unexpected INTERNAL_ERROR (500) with a request id — logged, never with a stack trace in
 * the response, and the daemon keeps running.
 *
 * This is an `HttpApi`-level middleware (`HttpApiBuilder.middleware`): it wraps the router, so it
 * sees `RouteNotFound`, the body-decode defect and the handlers' typed failures while they are
 * still values. A middleware given to `HttpApiBuilder.serve` runs too late: by then the platform
 * has already written its own empty 404/400/500 response, and whatever the middleware answers is
 * dropped.
 */
import {
  HttpApiError,
  HttpIncomingMessage,
  HttpMethod,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Cause, Effect, Option, Stream } from "effect"
import { toWire } from "../domain/ErrorWire"
import { BadRequest, errorMeta, InternalError, isPmfxError } from "../domain/errors"
import { API_ROUTES } from "../shared/apiRoutes"
import { MAX_APPLY_BODY_BYTES, MAX_BODY_BYTES } from "../shared/ApiSchemas"
import { WEBSOCKET_PATH } from "./websocket/webSocketRoute"

export { MAX_BODY_BYTES }

/**
 * How much of an oversized body is read before its 413. A chunked body (no `content-length`) is
 * read to learn its size; the platform destroys the connection of a request whose body passes the
 * read limit — no response can be sent then — so the limit is well above `MAX_BODY_BYTES`: a
 * chunked body up to this size gets its 413, a bigger one loses its connection. A body declared
 * over the limit is read and dropped up to this size too (see `checkBody`), and one declared bigger
 * is answered at once.
 */
const OVERSIZED_READ_LIMIT = 16 * MAX_BODY_BYTES

const OPENAPI_PATH = "/api/openapi.json"

/**
 * The router's longest path parameter (find-my-way's `maxParamLength`, 100 by default) — the same
 * as the longest app name (`MAX_NAME_LENGTH`, counted the same way once decoded), so no id that could name something is cut off by it.
 */
const MAX_ID_LENGTH = 100

/** A path pattern of the API (`/api/processes/:id/logs`) as a regular expression for one segment per parameter. */
const patternOf = (path: string): RegExp =>
  new RegExp(
    `^${path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.+*?^${}()|[\]\\]/g, "\\$&")))
      .join("/")}$`
  )

/**
 * Every route of the API as method and path pattern, to tell 405 from 404 — read from the API
 * itself, so a new endpoint can never answer 404 for a method it lacks.
 */
const ROUTES: ReadonlyArray<readonly [string, RegExp]> = (() => {
  const routes: Array<readonly [string, RegExp]> = [
    ["GET", patternOf(OPENAPI_PATH)],
    ["GET", patternOf(WEBSOCKET_PATH)]
  ]
  for (const { method, path } of API_ROUTES) routes.push([method, patternOf(path)])
  return routes
})()

const simple = (status: number, error: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ success: false, error }, { status, headers })

const bad = (status: number, field: string, reason: string, suggestion: string) =>
  HttpServerResponse.unsafeJson(
    toWire(new BadRequest({ message: `Invalid ${field}: ${reason}`, details: { field, reason, suggestion } })),
    { status }
  )

const notJson = () => bad(400, "body", "the body is not valid JSON", 'send a JSON object, like {"port": "4000"}')

let requestCounter = 0

/** The path of a request without its query string (the raw, still percent-encoded form). */
const pathOf = (request: HttpServerRequest.HttpServerRequest) => request.url.split("?")[0] ?? "/"

/**
 * Checks a body before any handler reads it: at most 1 MiB (413) and JSON (415). A body with a
 * `content-length` is judged by that header alone; a chunked one is read first (the platform keeps
 * what was read, so the handler parses the same text without reading the request again).
 */
const checkBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Option.Option<HttpServerResponse.HttpServerResponse>> =>
  Effect.gen(function* () {
    const method = request.method
    if (method !== "POST" && method !== "PUT" && method !== "PATCH") return Option.none()
    const declared = request.headers["content-length"]
    let length: number
    if (declared !== undefined) {
      length = Number(declared)
    } else if (request.headers["transfer-encoding"] !== undefined) {
      const text = yield* request.text.pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(OVERSIZED_READ_LIMIT)),
        Effect.either
      )
      if (text._tag === "Left")
        return Option.some(
          bad(
            413,
            "body",
            `the body could not be read (${text.left.reason})`,
            "send at most 1 MiB, with a content-length"
          )
        )
      length = Buffer.byteLength(text.right)
    } else {
      length = 0
    }
    // A whole ecosystem file goes to /api/apply in one request: it may be bigger.
    const limit = method === "POST" && pathOf(request) === "/api/apply" ? MAX_APPLY_BODY_BYTES : MAX_BODY_BYTES
    if (length > limit) {
      // The body is read (and dropped) before the 413: a client that sends its whole body before it
      // reads the answer (Node's http.request, most scripts) would otherwise be cut off mid-write —
      // the connection closes after the answer, with its body unread, and the client gets EPIPE or
      // a reset instead of the 413.
      if (declared !== undefined && length <= OVERSIZED_READ_LIMIT)
        yield* request.stream.pipe(Stream.runDrain, Effect.ignore)
      return Option.some(
        bad(
          413,
          "body",
          `the body is ${length} bytes, more than ${limit}`,
          `send at most ${limit / MAX_BODY_BYTES} MiB`
        )
      )
    }
    const type = request.headers["content-type"]
    if (length > 0 && (type === undefined || !/^application\/json\b/i.test(type.trim()))) {
      return Option.some(
        bad(
          415,
          "content-type",
          type === undefined
            ? "the body has no Content-Type; it must be application/json"
            : `${JSON.stringify(type)} is not application/json`,
          "send the body as JSON with Content-Type: application/json"
        )
      )
    }
    return Option.none()
  })

/** The first problem of a request the platform could not decode (a query parameter given twice, say). */
const decodeProblem = (error: HttpApiError.HttpApiDecodeError) => {
  const first = error.issues[0]
  const field = first === undefined || first.path.length === 0 ? "request" : first.path.map(String).join(".")
  return bad(
    400,
    field,
    first?.message ?? "the request does not match the API",
    "give each query parameter at most once, as text"
  )
}

const isDecodable = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

/**
 * No route took the request: 405 when the path exists with other methods, else 404 — or 400 when
 * the path has a broken %-escape (the router cannot decode it, so even a known path falls here,
 * and "use GET" would be wrong advice for a GET).
 */
const routeNotFound = (method: string, path: string) => {
  if (!isDecodable(path)) {
    return bad(
      400,
      "path",
      `${JSON.stringify(path)} has a malformed %-escape`,
      "percent-encode ids and names, like encodeURIComponent does"
    )
  }
  const allowed = [...new Set(ROUTES.filter(([, pattern]) => pattern.test(path)).map(([m]) => m))]
  if (allowed.includes(method)) {
    // The path has the shape of a route with this method, yet the router took none: its `{id}`
    // is longer than the router's limit for a parameter, which no name reaches.
    return bad(
      400,
      "id",
      `the {id} segment is longer than ${MAX_ID_LENGTH} characters`,
      `give a process id, an app name (at most ${MAX_ID_LENGTH} characters), a namespace or all`
    )
  }
  return allowed.length > 0
    ? // HTTP requires a 405 to list the methods that would work (RFC 9110 §15.5.6).
      simple(405, `Method ${method} is not allowed on ${path}; use ${allowed.join(" or ")}`, {
        allow: allowed.join(", ")
      })
    : simple(404, `Not found: ${method} ${path}`)
}

/**
 * The platform turns a body it cannot parse as JSON into a defect; recognise it (only on requests
 * that carry a body, so that some other `SyntaxError` is not blamed on the body).
 */
const isBodyDecodeDefect = (method: HttpMethod.HttpMethod, defect: unknown): boolean => {
  if (!HttpMethod.hasBody(method)) return false
  const tagged = defect as { readonly _tag?: string; readonly reason?: string; readonly name?: string }
  return (tagged._tag === "RequestError" && tagged.reason === "Decode") || tagged.name === "SyntaxError"
}

export const errorResponses = (app: HttpApp.Default): HttpApp.Default<never, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const rejected = yield* checkBody(request)
    if (Option.isSome(rejected)) return rejected.value
    const path = pathOf(request)
    const method = request.method
    return yield* app.pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error: unknown = failure.value
          // The handlers' own errors: written here, with the status of their code, so that an
          // error an endpoint forgot to declare still leaves in its wire shape (not as a 500).
          if (isPmfxError(error))
            return Effect.succeed(
              HttpServerResponse.unsafeJson(toWire(error), { status: errorMeta[error._tag].status })
            )
          if (error instanceof HttpServerError.RouteNotFound) return Effect.succeed(routeNotFound(method, path))
          if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.succeed(decodeProblem(error))
          if (error instanceof HttpServerError.RequestError) return Effect.succeed(notJson())
        }
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && isBodyDecodeDefect(method, defect.value)) return Effect.succeed(notJson())
        if (Cause.isInterruptedOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
        const id = `req-${process.pid}-${++requestCounter}`
        return Effect.logError(`internal error answering ${method} ${path} (${id})`, cause).pipe(
          Effect.as(
            HttpServerResponse.unsafeJson(
              toWire(
                new InternalError({ message: "unexpected server error; it was logged", details: { request_id: id } })
              ),
              { status: 500 }
            )
          )
        )
      })
    )
  })
