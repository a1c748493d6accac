/**
 * An `HttpClient` for a remote daemon's TCP listener (`--url`), on Node's own `http`/`https`
 * modules like the socket client beside the daemon: one connection per request (`agent: false`),
 * closed after it, so the CLI exits as soon as it is done (undici's keep-alive pool would hold it,
 * NOTES.md). Responses stream, which `logs --follow` needs. Connecting gives up after
 * CONNECT_TIMEOUT: an address that drops packets would otherwise hang the command; once connected
 * there is no limit (`--wait-ready` and `--follow` wait on purpose).
 */
import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import { Effect } from "effect"
import * as http from "node:http"
import * as https from "node:https"
import { Readable } from "node:stream"

const CONNECT_TIMEOUT_MS = 10_000

export const tcpHttpClient: HttpClient.HttpClient = HttpClient.make((request, url, signal) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const body = request.body
    const bytes =
      body._tag === "Uint8Array" ? body.body : body._tag === "Raw" && typeof body.body === "string" ? Buffer.from(body.body) : undefined
    const headers: Record<string, string> = { ...request.headers }
    if (bytes !== undefined) {
      headers["content-length"] = String(bytes.byteLength)
      if (body._tag === "Uint8Array" && headers["content-type"] === undefined) headers["content-type"] = body.contentType
    }
    const send = url.protocol === "https:" ? https.request : http.request
    let timer: NodeJS.Timeout | undefined
    const connected = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
    const outgoing = send(url, { method: request.method, headers, agent: false, signal }, (incoming) => {
      connected()
      const responseHeaders = new Headers()
      for (const [key, value] of Object.entries(incoming.headers)) {
        if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v)
        else if (value !== undefined) responseHeaders.set(key, value)
      }
      const status = incoming.statusCode ?? 500
      const stream = status === 204 || status === 304 ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>)
      resume(Effect.succeed(HttpClientResponse.fromWeb(request, new Response(stream, { status, headers: responseHeaders }))))
    })
    timer = setTimeout(() => outgoing.destroy(new Error(`no connection to ${url.host} within ${CONNECT_TIMEOUT_MS / 1000}s`)), CONNECT_TIMEOUT_MS)
    outgoing.on("socket", (socket) => {
      if (!socket.connecting) connected()
      else socket.once("connect", connected)
    })
    outgoing.on("error", (cause) => {
      connected()
      resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause, description: cause.message })))
    })
    outgoing.end(bytes)
  })
)
