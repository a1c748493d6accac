/**
 * Keeps a port busy with HTTP requests until stopped, and counts how they went: loops reusing
 * keep-alive connections and loops opening a new connection per request (`Connection: close`).
 * Used by the zero-failure reload test and bench/clusterReload.mjs's twin (same method).
 */
import * as http from "node:http"

export interface HammerResult {
  readonly ok: number
  /** Requests that got no answer (reset, refused, hang-up...). */
  readonly errors: number
  readonly resets: number
  /** Answers other than 200. */
  readonly bad: number
  readonly byError: Readonly<Record<string, number>>
}

export const startHammer = (port: number, options: { readonly keepAlive?: number; readonly fresh?: number } = {}) => {
  let stopped = false
  let ok = 0
  let errors = 0
  let resets = 0
  let bad = 0
  const byError: Record<string, number> = {}
  const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: options.keepAlive ?? 8 })
  const one = (agent: http.Agent | false) =>
    new Promise<void>((resolve) => {
      const request = http.get({ host: "127.0.0.1", port, path: "/", agent }, (response) => {
        response.resume()
        response.on("end", () => {
          if (response.statusCode === 200) ok++
          else bad++
          resolve()
        })
        response.on("error", () => {
          errors++
          resolve()
        })
      })
      // An answer that never comes counts as an error (10 s), not as a stalled client.
      request.setTimeout(10_000, () =>
        request.destroy(Object.assign(new Error("no answer within 10 s"), { code: "TIMEOUT" }))
      )
      request.on("error", (error: NodeJS.ErrnoException) => {
        errors++
        if (error.code === "ECONNRESET") resets++
        const key = error.code ?? error.message
        byError[key] = (byError[key] ?? 0) + 1
        resolve()
      })
    })
  const loop = async (agent: http.Agent | false) => {
    while (!stopped) await one(agent)
  }
  const loops = [
    ...Array.from({ length: options.keepAlive ?? 8 }, () => loop(keepAliveAgent)),
    ...Array.from({ length: options.fresh ?? 4 }, () => loop(false))
  ]
  return {
    /** Requests answered so far. */
    served: () => ok,
    stop: async (): Promise<HammerResult> => {
      stopped = true
      await Promise.all(loops)
      keepAliveAgent.destroy()
      return { ok, errors, resets, bad, byError }
    }
  }
}
