/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 and a port the system picks, keeping
 * every JSON POST it gets. `hang: true` accepts requests and never answers (a dead target); `status`
 * answers every JSON POST with that status instead of 204.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceivedRequest {
  readonly method: string | undefined
  readonly contentType: string | undefined
  readonly body: any
}

export interface WebhookReceiver {
  readonly url: string
  /** Parsed bodies of the JSON POSTs received, in order. */
  readonly bodies: Array<any>
  /** The same requests with their method and content type. */
  readonly requests: Array<ReceivedRequest>
  /** Requests that were not a JSON POST (answered 400). */
  readonly rejected: Array<string>
  /** Connections accepted (an attempt that never finished counts too). */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

export const startWebhookReceiver = (
  options: { readonly hang?: boolean; readonly status?: number } = {}
): Promise<WebhookReceiver> =>
  new Promise((resolve, reject) => {
    const bodies: Array<any> = []
    const requests: Array<ReceivedRequest> = []
    const rejected: Array<string> = []
    let connections = 0
    const server = http.createServer((request, response) => {
      if (options.hang === true) return
      let text = ""
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => (text += chunk))
      request.on("end", () => {
        const contentType = request.headers["content-type"]
        try {
          if (request.method !== "POST" || !String(contentType).startsWith("application/json"))
            throw new Error("not a JSON POST")
          const body: unknown = JSON.parse(text)
          bodies.push(body)
          requests.push({ method: request.method, contentType, body })
          response.writeHead(options.status ?? 204, options.status === 302 ? { location: "/elsewhere" } : {}).end()
        } catch (error) {
          rejected.push(`${request.method} ${request.url} ${String(error)}: ${text}`)
          response.writeHead(400).end()
        }
      })
    })
    server.on("connection", () => connections++)
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        bodies,
        requests,
        rejected,
        connections: () => connections,
        close: () =>
          new Promise<void>((closed) => {
            server.closeAllConnections()
            server.close(() => closed())
          })
      })
    })
  })
