// How the bodies of restart/reload, scale and signal requests are decoded.

import { Effect, Either, Schema } from "effect"
import { isRecord } from "../../config/mergeSettings"
import { type BadRequest } from "../../domain/errors"
import type { ScaleCount } from "../../supervisor/scaleApp"
import { commonSignals, parseSignal, type SignalSpec } from "../../supervisor/signals"
import { PortOverride, ScaleRequest, SignalRequest } from "../../shared/ApiSchemas"
import { badRequest } from "../requestValues"

/**
 * `{port?, update_env?, env?}` from a restart/reload body; an empty body means no override.
 * `update_env` makes `env` the apps' starting environment (PM2's `--update-env`).
 */
export const runOptions = (body: unknown) =>
  Effect.gen(function* () {
    if (body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0))
      return { port: undefined, baseEnv: undefined }
    const decoded = yield* Schema.decodeUnknown(PortOverride, { onExcessProperty: "error" })(body).pipe(
      Effect.mapError(() =>
        badRequest(
          "port",
          'the body must be {"port": "<port or range>"} and/or {"update_env": true, "env": {...}}',
          'send {"port": "4000"}, {"update_env": true, "env": {"KEY": "value"}}, or no body'
        )
      )
    )
    if (decoded.update_env === true && decoded.env === undefined) {
      return yield* badRequest(
        "env",
        "update_env needs the environment to give the apps",
        "send env (the caller's environment) with update_env"
      )
    }
    return { port: decoded.port, baseEnv: decoded.update_env === true ? decoded.env : undefined }
  })

/** `{instances}` of a scale body: `4`/`"4"` (the new count) or `"+2"`/`"-1"` (a change of it). */
export const scaleCount = (body: unknown): Effect.Effect<ScaleCount, BadRequest> =>
  Effect.gen(function* () {
    const suggestion =
      'give the new count (4) or a change of it (+2, -1); over HTTP send {"instances": 4} or {"instances": "+2"}'
    const decoded = yield* Schema.decodeUnknown(ScaleRequest, { onExcessProperty: "error" })(body).pipe(
      Effect.mapError(() => badRequest("instances", 'the body must be {"instances": <count or +n/-n>}', suggestion))
    )
    const value = decoded.instances
    if (typeof value === "number") return value
    const match = /^([+-]?)(\d{1,7})$/.exec(value.trim())
    if (match === null)
      return yield* badRequest(
        "instances",
        `${JSON.stringify(value)} is not a count (4) or a change (+2, -1)`,
        suggestion
      )
    const n = Number(match[2])
    return match[1] === "" ? n : { by: match[1] === "-" ? -n : n }
  })

/** `{signal}` of a signal body: a name (`SIGUSR2`, `USR2`) or a number. */
export const signalOf = (body: unknown): Effect.Effect<SignalSpec, BadRequest> =>
  Effect.gen(function* () {
    const suggestion = `use one of ${commonSignals}`
    const decoded = yield* Schema.decodeUnknown(SignalRequest, { onExcessProperty: "error" })(body).pipe(
      Effect.mapError(() =>
        badRequest(
          "signal",
          'the body must be {"signal": <name or number>}',
          `send {"signal": "SIGUSR2"}; ${suggestion}`
        )
      )
    )
    const parsed = parseSignal(String(decoded.signal))
    if (Either.isLeft(parsed)) return yield* badRequest("signal", parsed.left, suggestion)
    return parsed.right
  })
