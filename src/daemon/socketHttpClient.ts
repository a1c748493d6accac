/**
 * An `HttpClient` that talks HTTP over the daemon's unix socket with Node's own `http` module.
 * (The platform's Node client pulls in undici, half a megabyte of the CLI bundle and a keep-alive
 * pool that holds the CLI's exit.) One connection per request, closed after it.
 */
import { HttpClient, HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Effect } from "effect"
import * as http from "node:http"
import { outgoingOf, responseOf } from "./nodeHttpExchange"

export const socketHttpClient = (socketPath: string): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
      const { bytes, headers } = outgoingOf(request)
      const outgoing = http.request(
        {
          socketPath,
          path: `${url.pathname}${url.search}`,
          method: request.method,
          headers: { ...headers, host: "pmfx" },
          agent: false,
          signal
        },
        (incoming) => resume(Effect.succeed(responseOf(request, incoming)))
      )
      outgoing.on("error", (cause) =>
        resume(
          Effect.fail(
            new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause.message })
          )
        )
      )
      outgoing.end(bytes)
    })
  )
