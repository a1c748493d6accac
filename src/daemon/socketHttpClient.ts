/**
 * An `HttpClient` that talks HTTP over the daemon's unix socket with Node's own `http` module.
 * (The platform's Node client pulls in undici, half a megabyte of the CLI bundle and a keep-alive
 * pool that holds the CLI's exit — NOTES.md.) One connection per request, closed after it.
 */
import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import { Effect } from "effect"
import * as http from "node:http"
import { Readable } from "node:stream"

export const socketHttpClient = (socketPath: string): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
      const body = request.body
      const bytes =
        body._tag === "Uint8Array" ? body.body : body._tag === "Raw" && typeof body.body === "string" ? Buffer.from(body.body) : undefined
      const headers: Record<string, string> = { ...request.headers, host: "pmfx" }
      if (bytes !== undefined) {
        headers["content-length"] = String(bytes.byteLength)
        if (body._tag === "Uint8Array" && headers["content-type"] === undefined) headers["content-type"] = body.contentType
      }
      const outgoing = http.request(
        { socketPath, path: `${url.pathname}${url.search}`, method: request.method, headers, agent: false, signal },
        (incoming) => {
          const responseHeaders = new Headers()
          for (const [key, value] of Object.entries(incoming.headers)) {
            if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v)
            else if (value !== undefined) responseHeaders.set(key, value)
          }
          const status = incoming.statusCode ?? 500
          const stream = status === 204 || status === 304 ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>)
          resume(Effect.succeed(HttpClientResponse.fromWeb(request, new Response(stream, { status, headers: responseHeaders }))))
        }
      )
      outgoing.on("error", (cause) =>
        resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause.message })))
      )
      outgoing.end(bytes)
    })
  )
