/** A WebSocket client for tests: keeps every message it receives, and waits for the ones asked for. */
import WebSocket from "ws"

export interface WsMessage {
  readonly type: string
  readonly data: any
  readonly timestamp: string
}

export interface WsClient {
  readonly socket: WebSocket
  /** Every message received so far, in order. */
  readonly messages: Array<WsMessage>
  /** The first message (from `from` on) that `match` accepts, waiting up to `timeoutMs` for it. */
  readonly next: (
    match: (message: WsMessage) => boolean,
    what: string,
    options?: { readonly from?: number; readonly timeoutMs?: number }
  ) => Promise<WsMessage>
  readonly send: (message: unknown) => void
  /** Resolves with the close code once the connection is closed (1006 when it was dropped). */
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
  readonly close: () => void
}

/** Connects and waits for the handshake to finish (rejects on a refused handshake, with its status). */
export const connectWs = (url: string, headers: Record<string, string> = {}): Promise<WsClient> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    const messages: Array<WsMessage> = []
    const waiters = new Set<() => void>()
    let closedFlag = false
    const closed = new Promise<number>((done) =>
      socket.on("close", (code) => {
        closedFlag = true
        for (const wake of waiters) wake()
        done(code)
      })
    )
    socket.on("message", (data) => {
      messages.push(JSON.parse(data.toString()) as WsMessage)
      for (const wake of waiters) wake()
    })
    socket.on("unexpected-response", (_request, response) => {
      reject(new Error(`handshake refused: ${response.statusCode}`))
      socket.terminate()
    })
    socket.on("error", reject)

    const next: WsClient["next"] = (match, what, options = {}) =>
      new Promise((found, fail) => {
        const deadline = setTimeout(() => {
          waiters.delete(check)
          fail(
            new Error(
              `no ${what} within ${options.timeoutMs ?? 30_000} ms; got: ${messages.map((m) => m.type).join(", ")}`
            )
          )
        }, options.timeoutMs ?? 30_000)
        const check = () => {
          const hit = messages.slice(options.from ?? 0).find(match)
          if (hit !== undefined) {
            clearTimeout(deadline)
            waiters.delete(check)
            found(hit)
          } else if (closedFlag) {
            clearTimeout(deadline)
            waiters.delete(check)
            fail(new Error(`the connection closed before ${what}; got: ${messages.map((m) => m.type).join(", ")}`))
          }
        }
        waiters.add(check)
        check()
      })

    socket.once("open", () =>
      resolve({
        socket,
        messages,
        next,
        send: (message) => socket.send(JSON.stringify(message)),
        closed,
        isClosed: () => closedFlag,
        close: () => socket.terminate()
      })
    )
  })
