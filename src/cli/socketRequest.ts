/**
 * One request (`GET`, `POST`, `DELETE`; a JSON `body` or none) on a unix socket, on a connection of its own made
 * by `createConnection` (no HTTP agent: see daemon/socketHttpClient.ts for why), for the CLI's
 * requests that come before or without the typed client: the launcher's listings and actions
 * (localRows.ts, fastAction.ts), completion, and the "does a daemon answer" probe (socketProbe.ts).
 * Resolves the status and body; null when the connection fails, breaks, goes idle for
 * `idleTimeoutMs`, or `signal` aborts it. Never rejects. `onConnect` tells a caller that the request
 * reached the daemon (a null after it is a broken connection, not an absent daemon).
 */
import * as http from "node:http"
import * as net from "node:net"

export interface SocketAnswer {
  readonly status: number
  readonly body: Buffer
}

export const socketRequest = (
  socketPath: string,
  method: "GET" | "POST" | "DELETE",
  path: string,
  options: {
    readonly idleTimeoutMs?: number
    readonly signal?: AbortSignal
    readonly onConnect?: () => void
    /** JSON text to send. */
    readonly body?: string
  } = {}
): Promise<SocketAnswer | null> =>
  new Promise((resolve) => {
    const request = http.request(
      {
        createConnection: () => {
          const socket = net.createConnection(socketPath)
          if (options.onConnect !== undefined) socket.once("connect", options.onConnect)
          return socket
        },
        path,
        method,
        headers: {
          host: "pmfx",
          accept: "application/json",
          // The body's length said as such (an empty one too), not as a chunked stream.
          ...(options.body === undefined
            ? method === "GET"
              ? {}
              : { "content-length": "0" }
            : { "content-type": "application/json", "content-length": String(Buffer.byteLength(options.body)) })
        },
        ...(options.signal === undefined ? {} : { signal: options.signal })
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", () => resolve(null))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }))
      }
    )
    if (options.idleTimeoutMs !== undefined) request.setTimeout(options.idleTimeoutMs, () => request.destroy())
    request.on("error", () => resolve(null))
    request.end(options.body)
  })
