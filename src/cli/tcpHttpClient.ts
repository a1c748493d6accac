/**
 * An `HttpClient` for a remote daemon's TCP listener (`--url`), on Node's own `http`/`https`
 * modules like the socket client beside the daemon: one connection per request (`agent: false`),
 * closed after it, so the CLI exits as soon as it is done (undici's keep-alive pool would hold it).
 * Responses stream, which `logs --follow` needs. Connecting gives up after
 * CONNECT_TIMEOUT: an address that drops packets would otherwise hang the command; once connected
 * there is no limit (`--wait-ready` and `--follow` wait on purpose).
 */
import { HttpClient, HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Effect } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import { outgoingOf, responseOf } from "../daemon/nodeHttpExchange"

const CONNECT_TIMEOUT_MS = 10_000

export const tcpHttpClient: HttpClient.HttpClient = HttpClient.make((request, url, signal) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const { bytes, headers } = outgoingOf(request)
    const send = url.protocol === "https:" ? https.request : http.request
    let timer: NodeJS.Timeout | undefined
    const connected = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
    const outgoing = send(url, { method: request.method, headers, agent: false, signal }, (incoming) => {
      connected()
      resume(Effect.succeed(responseOf(request, incoming)))
    })
    timer = setTimeout(
      () => outgoing.destroy(new Error(`no connection to ${url.host} within ${CONNECT_TIMEOUT_MS / 1000}s`)),
      CONNECT_TIMEOUT_MS
    )
    outgoing.on("socket", (socket) => {
      if (!socket.connecting) connected()
      else socket.once("connect", connected)
    })
    outgoing.on("error", (cause) => {
      connected()
      resume(
        Effect.fail(
          new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause.message })
        )
      )
    })
    outgoing.end(bytes)
  })
)
