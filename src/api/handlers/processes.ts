/** Handlers of `/api/processes…` (DESIGN §7). */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Schema, Stream } from "effect"
import { ConfigLoader } from "../../config/ConfigLoader"
import { isRecord } from "../../config/mergeSettings"
import { InvalidConfig } from "../../domain/errors"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import type { LogEntry } from "../../logs/LogEntry"
import { LogLevel } from "../../logs/LogEntry"
import type { LogQuery } from "../../logs/LogQuery"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { PmfxApi } from "../Api"
import { CreateRequest, PortOverride } from "../ApiSchemas"
import { badRequest, nameMatcher, parseDurationParam, parseStatuses, parseWholeNumber } from "../requestValues"

const KEEP_ALIVE_MS = 15_000
const MAX_LINES = 10_000

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`

const action = (message: string, processes: ReadonlyArray<ProcessSummary>) => ({ success: true as const, message, processes })

/** `{port?}` from a restart/reload body; an empty body means no override. */
const portOverride = (body: unknown) => {
  if (body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0)) return Effect.succeed(undefined)
  return Schema.decodeUnknown(PortOverride, { onExcessProperty: "error" })(body).pipe(
    Effect.map((decoded) => decoded.port),
    Effect.mapError(() => badRequest("port", "the body must be {\"port\": \"<port or range>\"}", 'send {"port": "4000"} or {"port": "4000-4003"}, or no body'))
  )
}

const logQuery = (params: typeof import("../ApiSchemas").LogsQuery.Type) =>
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
      return yield* badRequest("level", `${JSON.stringify(level)} is not a level`, `use one of ${LogLevel.literals.join(", ")}`)
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

/** Server-Sent Events: one `event: log` per line, a comment every 15 s to keep proxies from closing. */
const sse = (entries: Stream.Stream<LogEntry>) =>
  HttpServerResponse.stream(
    Stream.merge(
      entries.pipe(Stream.map((entry) => `event: log\ndata: ${JSON.stringify(entry)}\n\n`)),
      Stream.tick(KEEP_ALIVE_MS).pipe(
        Stream.drop(1),
        Stream.map(() => ": keep-alive\n\n")
      ),
      { haltStrategy: "left" }
    ).pipe(Stream.map((text) => encoder.encode(text))),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", connection: "keep-alive" } }
  )

export const ProcessesHandlers = HttpApiBuilder.group(PmfxApi, "processes", (handlers) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const loader = yield* ConfigLoader
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const statuses = urlParams.status === undefined ? undefined : yield* parseStatuses("status", urlParams.status)
          const matchesName = urlParams.name === undefined ? undefined : nameMatcher(urlParams.name)
          const rows = yield* manager.list()
          return rows.filter(
            (row) =>
              (statuses === undefined || statuses.includes(row.status)) &&
              (matchesName === undefined || matchesName(row.name)) &&
              (urlParams.namespace === undefined || row.namespace === urlParams.namespace)
          )
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          if (!isRecord(payload)) {
            return yield* badRequest("body", "the body must be a JSON object", 'send one app ({"name": "api", "script": "server.js"}) or {"apps": [...]}')
          }
          let definitions
          let baseEnv: Readonly<Record<string, string>>
          if ("definitions" in payload) {
            // The CLI's form: definitions its own loader resolved, with its environment.
            const request = yield* Schema.decodeUnknown(CreateRequest)(payload).pipe(
              Effect.mapError(() => badRequest("definitions", "not a list of resolved app definitions", "send app settings instead: one app, or {\"apps\": [...]}"))
            )
            definitions = request.definitions ?? []
            baseEnv = request.env ?? {}
            if (definitions.length === 0) {
              return yield* InvalidConfig.fromProblems([{ field: "definitions", value: [], message: "has no app", suggestion: "send at least one app" }])
            }
          } else {
            const environment = process.env as Record<string, string>
            const loaded = yield* loader.fromDocument(payload, process.cwd(), { environment })
            definitions = loaded.apps
            baseEnv = environment
          }
          const rows = yield* manager.create(definitions, { baseEnv })
          return action(`started ${plural(definitions.length, "app")} (${plural(rows.length, "process", "processes")})`, rows)
        })
      )
      .handle("deleteByStatus", ({ urlParams }) =>
        Effect.gen(function* () {
          if (urlParams.status === undefined) {
            return yield* badRequest("status", "is required to delete by status", "use DELETE /api/processes?status=stopped,errored, or DELETE /api/processes/{id}")
          }
          const statuses = yield* parseStatuses("status", urlParams.status)
          const rows = (yield* manager.list()).filter((row) => statuses.includes(row.status))
          const deleted: Array<number> = []
          for (const row of rows) deleted.push(...(yield* manager.delete(String(row.id)).pipe(Effect.orElseSucceed(() => []))))
          return { success: true as const, message: `deleted ${plural(deleted.length, "process", "processes")}`, deleted }
        })
      )
      .handle("get", ({ path }) => manager.get(path.id))
      .handle("delete", ({ path }) => Effect.asVoid(manager.delete(path.id)))
      .handle("start", ({ path }) => Effect.map(manager.start(path.id), (rows) => action(`started ${path.id}`, rows)))
      .handle("stop", ({ path }) => Effect.map(manager.stop(path.id), (rows) => action(`stopped ${path.id}`, rows)))
      .handle("restart", ({ path, payload }) =>
        Effect.gen(function* () {
          const port = yield* portOverride(payload)
          const rows = yield* manager.restart(path.id, { port })
          return action(`restarted ${path.id}${port === undefined ? "" : ` on port ${port}`}`, rows)
        })
      )
      .handle("reload", ({ path, payload }) =>
        Effect.gen(function* () {
          const port = yield* portOverride(payload)
          const result = yield* manager.reload(path.id, { port })
          const note = result.restartedInstead.length > 0 ? ` (${result.restartedInstead.join(", ")}: one instance, restarted instead)` : ""
          return { ...action(`reloaded ${path.id}${note}`, result.rows), restarted_instead: result.restartedInstead }
        })
      )
      .handle("ready", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const timeout = yield* parseDurationParam("timeout", urlParams.timeout, 60_000)
          return yield* manager.waitReady(path.id, timeout)
        })
      )
      .handle("logs", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const query = yield* logQuery(urlParams)
          const [first] = yield* manager.resolve(path.id)
          const name = first?.name ?? path.id
          if (urlParams.follow === "true" || urlParams.follow === "1") {
            const entries = yield* manager.followLogs(path.id, query)
            return sse(entries)
          }
          const entries = yield* manager.readLogs(path.id, query)
          return { id: path.id, name, entries }
        })
      )
      .handle("metrics", ({ path }) => manager.metrics(path.id))
  })
)
