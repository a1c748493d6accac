/**
 * An `HttpClient` that talks HTTP over the daemon's unix socket with Node's own `http` module.
 * (The platform's Node client pulls in undici, half a megabyte of the CLI bundle and a keep-alive
 * pool that holds the CLI's exit.) One connection per request, closed after it, made by
 * `createConnection` rather than an agent: an agent (even `agent: false`, which makes a fresh one)
 * works out a TLS server name from the Host header first, and its IPv6 check alone cost each CLI
 * command ~5 ms of start-up.
 */
import { HttpClient, HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Effect } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import { outgoingOf, responseOf } from "./nodeHttpExchange"

export const socketHttpClient = (socketPath: string): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
      const { bytes, headers } = outgoingOf(request)
      const outgoing = http.request(
        {
          createConnection: () => net.createConnection(socketPath),
          path: `${url.pathname}${url.search}`,
          method: request.method,
          headers: { ...headers, host: "pmfx" },
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
