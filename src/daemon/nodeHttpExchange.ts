/**
 * What the two Node-`http` clients (the socket one and the `--url` one) share: the bytes and
 * headers of an outgoing platform request, and a Node response as a platform response (streamed,
 * which `logs --follow` needs).
 */
import type { HttpClientRequest } from "@effect/platform"
import { Cookies, Headers, HttpClientError, HttpClientResponse, HttpIncomingMessage, UrlParams } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Effect, Inspectable, Option, type Stream } from "effect"
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

/**
 * A Node response as a platform response, read straight from the `IncomingMessage` (as
 * @effect/platform-node's own client does). Not through a web `Response`: `Headers`, `Response`
 * and `Readable.toWeb` make Node load its bundled undici on first use, ~15–20 ms of CPU in every
 * CLI command that talks to the daemon (docs/decisions.md, "The suite, fifth pass"). Only
 * `formData`, which pmfx never reads, still goes through one.
 */
class NodeClientResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  /** The body as text, read once (the stream can be read only once). */
  private textOnce: Effect.Effect<string, HttpClientError.ResponseError> | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly source: http.IncomingMessage
  ) {
    super()
  }

  private readonly onError = (cause: unknown) =>
    new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })

  get status(): number {
    return this.source.statusCode ?? 500
  }
  get headers(): Headers.Headers {
    return Headers.fromInput(this.source.headers)
  }
  get cookies(): Cookies.Cookies {
    return Cookies.fromSetCookie(this.source.headers["set-cookie"] ?? [])
  }
  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return NodeStream.fromReadable<HttpClientError.ResponseError>(() => this.source, this.onError)
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    this.textOnce ??= Effect.runSync(
      Effect.cached(
        Effect.flatMap(HttpIncomingMessage.MaxBodySize, (maxBytes) =>
          NodeStream.toString(() => this.source, { onFailure: this.onError, maxBytes: Option.getOrUndefined(maxBytes) })
        )
      )
    )
    return this.textOnce
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.tryMap(this.text, { try: (text) => (text === "" ? null : JSON.parse(text)), catch: this.onError })
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: this.onError })
    )
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.flatMap(HttpIncomingMessage.MaxBodySize, (maxBytes) =>
      NodeStream.toUint8Array(() => this.source, { onFailure: this.onError, maxBytes: Option.getOrUndefined(maxBytes) })
    ).pipe(
      Effect.map((bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
    )
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.tryPromise({
      try: () => {
        const headers = new globalThis.Headers()
        for (const [key, value] of Object.entries(this.source.headers)) {
          if (Array.isArray(value)) for (const v of value) headers.append(key, v)
          else if (value !== undefined) headers.set(key, value)
        }
        const body = Readable.toWeb(this.source) as ReadableStream<Uint8Array>
        return new Response(body, { status: this.status, headers }).formData()
      },
      catch: this.onError
    })
  }
  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

export const responseOf = (
  request: HttpClientRequest.HttpClientRequest,
  incoming: http.IncomingMessage
): HttpClientResponse.HttpClientResponse => new NodeClientResponse(request, incoming)
