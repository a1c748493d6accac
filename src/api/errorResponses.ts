/**
 * What the platform would otherwise answer with an empty body (NOTES.md): an unknown route (404,
 * or 405 when the path exists with another method) gets the simple shape `{success:false, error}`;
 * a body that is not JSON gets BAD_REQUEST (400), a wrong content type 415, a body over 1 MiB 413;
 * anything unexpected INTERNAL_ERROR (500) with a request id — logged, never with a stack trace in
 * the response, and the daemon keeps running.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { toWire } from "../domain/ErrorWire"
import { BadRequest, InternalError } from "../domain/errors"

export const MAX_BODY_BYTES = 1024 * 1024

/** Every route of the API as method and path pattern, to tell 405 from 404. */
const ROUTES: ReadonlyArray<readonly [string, RegExp]> = [
  ["GET", /^\/$/],
  ["GET", /^\/api\/processes$/],
  ["POST", /^\/api\/processes$/],
  ["DELETE", /^\/api\/processes$/],
  ["GET", /^\/api\/processes\/[^/]+$/],
  ["DELETE", /^\/api\/processes\/[^/]+$/],
  ["POST", /^\/api\/processes\/[^/]+\/(start|stop|restart|reload)$/],
  ["GET", /^\/api\/processes\/[^/]+\/(ready|logs|metrics)$/],
  ["GET", /^\/api\/(system|status|system\/stats|openapi\.json)$/],
  ["GET", /^\/health$/],
  ["POST", /^\/daemon\/(kill|resurrect)$/]
]

const simple = (status: number, error: string) => HttpServerResponse.unsafeJson({ success: false, error }, { status })

const structured = (status: number, error: BadRequest | InternalError) => HttpServerResponse.unsafeJson(toWire(error), { status })

const bad = (status: number, field: string, reason: string, suggestion: string) =>
  structured(status, new BadRequest({ message: `Invalid ${field}: ${reason}`, details: { field, reason, suggestion } }))

let requestCounter = 0

export const errorResponses = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = request.url.split("?")[0] ?? "/"
    const method = request.method.toUpperCase()
    if (method === "POST" || method === "PUT" || method === "PATCH") {
      const length = Number(request.headers["content-length"] ?? "0")
      if (length > MAX_BODY_BYTES) {
        return bad(413, "body", `the body is ${length} bytes, more than ${MAX_BODY_BYTES}`, "send at most 1 MiB")
      }
      const type = request.headers["content-type"]
      if (length > 0 && (type === undefined || !/^application\/json\b/i.test(type))) {
        return bad(415, "content-type", `${type === undefined ? "no content type" : JSON.stringify(type)} is not application/json`, "send the body as JSON with Content-Type: application/json")
      }
    }
    return yield* app.pipe(
      Effect.catchAllCause((cause) => {
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure)) {
          const error = failure.value as { readonly _tag?: string }
          if (error._tag === "RouteNotFound") {
            const known = ROUTES.filter(([, pattern]) => pattern.test(path))
            return Effect.succeed(
              known.length > 0
                ? simple(405, `Method ${method} is not allowed on ${path}; use ${[...new Set(known.map(([m]) => m))].join(" or ")}`)
                : simple(404, `Not found: ${method} ${path}`)
            )
          }
          if (error._tag === "RequestError") {
            return Effect.succeed(bad(400, "body", "the body is not valid JSON", "send a JSON object, like {\"port\": \"4000\"}"))
          }
        }
        const defect = Cause.dieOption(cause)
        if (Option.isSome(defect) && isBodyDecodeDefect(defect.value)) {
          return Effect.succeed(bad(400, "body", "the body is not valid JSON", "send a JSON object"))
        }
        if (Cause.isInterruptedOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
        const id = `req-${process.pid}-${++requestCounter}`
        return Effect.logError(`internal error answering ${method} ${path} (${id})`, cause).pipe(
          Effect.as(structured(500, new InternalError({ message: "unexpected server error; it was logged", details: { request_id: id } })))
        )
      })
    )
  })

/** The platform turns a body it cannot parse as JSON into a defect; recognise it. */
const isBodyDecodeDefect = (defect: unknown): boolean => {
  const tagged = defect as { readonly _tag?: string; readonly reason?: string; readonly name?: string }
  return (tagged._tag === "RequestError" && tagged.reason === "Decode") || tagged.name === "SyntaxError"
}
