/**
 * Whether a pmfx daemon answers on a unix socket: `GET /` answered 200 with the service record
 * naming pmfx. Every command that talks to the local daemon asks this first (DaemonClient's
 * `ensureDaemon`), so it is a plain request on its own connection, read with one small schema:
 * through the typed API client the same question cost each command ~8 ms of CPU.
 */
import { Effect, Schema } from "effect"
import * as http from "node:http"
import * as net from "node:net"

/** The one field read from the answer (the rest of the record is the typed client's business). */
const decodeService = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ name: Schema.Literal("pmfx") })))

/** Never fails: no socket, a refused or reset connection, another answer or a body that is not the record are all `false`. */
export const socketAnswers = (socketPath: string): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    let settled = false
    const settle = (answers: boolean) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(answers))
    }
    const request = http.request(
      {
        // A connection of its own, without an agent (see daemon/socketHttpClient.ts for why).
        createConnection: () => net.createConnection(socketPath),
        path: "/",
        method: "GET",
        headers: { host: "pmfx", accept: "application/json" }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", () => settle(false))
        response.on("end", () => {
          if (response.statusCode !== 200) return settle(false)
          settle(decodeService(Buffer.concat(chunks).toString("utf8"))._tag === "Some")
        })
      }
    )
    request.on("error", () => settle(false))
    request.end()
    // Interrupted (the caller's timeout): the connection goes with it.
    return Effect.sync(() => request.destroy())
  })
