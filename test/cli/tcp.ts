/** TCP helpers for the tests of the remote CLI and `pmfx daemon --web`. */
import * as http from "node:http"
import * as net from "node:net"

/** A port that was free a moment ago: the kernel's pick for port 0, released at once. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

export interface HttpReply {
  readonly status: number
  readonly body: unknown
}

/** One GET to 127.0.0.1:<port>; the body parsed when it is JSON. Rejects when nothing listens. */
export const httpGet = (port: number, urlPath: string, headers: Record<string, string> = {}): Promise<HttpReply> =>
  new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: urlPath, headers, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // Not JSON: keep the text.
        }
        resolve({ status: response.statusCode ?? 0, body })
      })
    })
    request.on("error", reject)
  })

/** Polls until the async `check` resolves (an assertion that stops throwing), or fails with its last error. */
export const eventuallyAsync = async <A>(check: () => Promise<A>, timeoutMs = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
