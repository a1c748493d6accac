/** The log faces of `/api/processes/{id}/logs` (docs/api.md): the query a request asks for, and the SSE stream of `follow`. */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import type { LogEntry } from "../../logs/LogEntry"
import { LogLevel } from "../../logs/LogEntry"
import type { LogQuery } from "../../logs/LogQuery"
import type { LogsQuery } from "../../shared/ApiSchemas"
import { badRequest, parseWholeNumber } from "../requestValues"

const KEEP_ALIVE_MS = 15_000
const MAX_LINES = 10_000

export const logQuery = (params: typeof LogsQuery.Type) =>
  Effect.gen(function* () {
    const lines = yield* parseWholeNumber("lines", params.lines)
    if (lines !== undefined && lines > MAX_LINES) {
      return yield* badRequest("lines", `${lines} is more than ${MAX_LINES}`, `ask for at most ${MAX_LINES} lines`)
    }
    const instance = yield* parseWholeNumber("instance", params.instance)
    const stream = params.stream
    if (stream !== undefined && stream !== "out" && stream !== "err" && stream !== "all") {
      return yield* badRequest("stream", `${JSON.stringify(stream)} is not a stream`, "use out, err or all")
    }
    const level = params.level
    if (level !== undefined && !Schema.is(LogLevel)(level)) {
      return yield* badRequest(
        "level",
        `${JSON.stringify(level)} is not a level`,
        `use one of ${LogLevel.literals.join(", ")}`
      )
    }
    const query: LogQuery = {
      ...(lines === undefined ? {} : { lines }),
      ...(instance === undefined ? {} : { instance }),
      ...(stream === undefined ? {} : { stream }),
      ...(level === undefined ? {} : { level }),
      ...(params.grep === undefined ? {} : { grep: params.grep }),
      ...(params.since === undefined ? {} : { since: params.since }),
      ...(params.until === undefined ? {} : { until: params.until })
    }
    return query
  })

const encoder = new TextEncoder()

/**
 * Server-Sent Events: one `event: log` per line, a comment every 15 s to keep proxies from closing.
 * The first comment goes out at once: Node sends the response headers with the first chunk, so
 * without it a client would not even see the stream open until a line or 15 s had passed.
 */
export const sse = (entries: Stream.Stream<LogEntry>) =>
  HttpServerResponse.stream(
    Stream.merge(
      entries.pipe(Stream.map((entry) => `event: log\ndata: ${JSON.stringify(entry)}\n\n`)),
      Stream.tick(KEEP_ALIVE_MS).pipe(Stream.map(() => ": keep-alive\n\n")),
      { haltStrategy: "left" }
    ).pipe(Stream.map((text) => encoder.encode(text))),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", connection: "keep-alive" } }
  )
