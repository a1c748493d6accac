/**
 * `GET <path>` on a unix socket, on a connection of its own made by `createConnection` (no HTTP
 * agent: see daemon/socketHttpClient.ts for why), for the CLI's requests that come before or
 * without the typed client: the launcher's `list --json` and completion (localRows.ts) and the
 * "does a daemon answer" probe (socketProbe.ts). Resolves the status and body; null when the
 * connection fails, breaks, goes idle for `idleTimeoutMs`, or `signal` aborts it. Never rejects.
 */
import * as http from "node:http"
import * as net from "node:net"

export interface SocketAnswer {
  readonly status: number
  readonly body: Buffer
}

export const socketGet = (
  socketPath: string,
  path: string,
  options: { readonly idleTimeoutMs?: number; readonly signal?: AbortSignal } = {}
): Promise<SocketAnswer | null> =>
  new Promise((resolve) => {
    const request = http.request(
      {
        createConnection: () => net.createConnection(socketPath),
        path,
        method: "GET",
        headers: { host: "pmfx", accept: "application/json" },
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
    request.end()
  })
