/**
 * What the two Node-`http` clients (the socket one and the `--url` one) share: the bytes and
 * headers of an outgoing platform request, and a Node response as a platform response (streamed,
 * which `logs --follow` needs).
 */
import type { HttpClientRequest } from "@effect/platform"
import { HttpClientResponse } from "@effect/platform"
import type * as http from "node:http"
import { Readable } from "node:stream"

/** The body to write (if any) and the headers to send with it. */
export const outgoingOf = (
  request: HttpClientRequest.HttpClientRequest
): { readonly bytes: Uint8Array | undefined; readonly headers: Record<string, string> } => {
  const body = request.body
  const bytes =
    body._tag === "Uint8Array"
      ? body.body
      : body._tag === "Raw" && typeof body.body === "string"
        ? Buffer.from(body.body)
        : undefined
  const headers: Record<string, string> = { ...request.headers }
  if (bytes !== undefined) {
    headers["content-length"] = String(bytes.byteLength)
    if (body._tag === "Uint8Array" && headers["content-type"] === undefined) headers["content-type"] = body.contentType
  }
  return { bytes, headers }
}

export const responseOf = (
  request: HttpClientRequest.HttpClientRequest,
  incoming: http.IncomingMessage
): HttpClientResponse.HttpClientResponse => {
  const headers = new Headers()
  for (const [key, value] of Object.entries(incoming.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v)
    else if (value !== undefined) headers.set(key, value)
  }
  const status = incoming.statusCode ?? 500
  const stream = status === 204 || status === 304 ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>)
  return HttpClientResponse.fromWeb(request, new Response(stream, { status, headers }))
}
