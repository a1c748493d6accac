/**
 * Whether a pmfx daemon answers on a unix socket: `GET /` answered 200 with the service record
 * naming pmfx. Every command that talks to the local daemon asks this first (DaemonClient's
 * `ensureDaemon`), so it is a plain request (socketRequest.ts) read with one small schema: through the
 * typed API client the same question cost each command ~8 ms of CPU.
 */
import { Effect, Schema } from "effect"
import { socketRequest } from "./socketRequest"

/** The one field read from the answer (the rest of the record is the typed client's business). */
const decodeService = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ name: Schema.Literal("pmfx") })))

/**
 * Never fails: no socket, a refused or reset connection, another answer or a body that is not the
 * record are all `false`. Interrupted (the caller's timeout), it closes the connection.
 */
export const socketAnswers = (socketPath: string): Effect.Effect<boolean> =>
  Effect.promise((signal) => socketRequest(socketPath, "GET", "/", { signal })).pipe(
    Effect.map(
      (answer) =>
        answer !== null && answer.status === 200 && decodeService(answer.body.toString("utf8"))._tag === "Some"
    )
  )
