/**
 * The log faces of the process table (docs/architecture.md §7, docs/api.md): read the last lines
 * of a target, follow new ones, empty its files, reopen every file after an outside logrotate.
 */
import { Clock, Effect, Option, Stream } from "effect"
import { instanceFiles } from "../domain/logPaths"
import type { EventBus } from "../events/EventBus"
import { compileLogQuery, DEFAULT_LINES, entryMatches, type LogQuery } from "../logs/LogQuery"
import type { LogStore } from "../logs/LogStore"
import type { ProcessTable } from "./processTable"
import type { Row } from "./Row"

export const makeLogFaces = (table: ProcessTable, logs: LogStore, bus: EventBus, home: string) => {
  /** Empties the rows' log files (LogStore.flush); returns the paths. */
  const flushRows = (selected: ReadonlyArray<Row>) =>
    logs.flush(
      selected.flatMap((row) => {
        const f = instanceFiles(row.app.definition, row.instance, home)
        return f.log_file === null ? [f.out_file, f.error_file] : [f.out_file, f.error_file, f.log_file]
      })
    )

  return {
    /**
     * Empties the log files of the target's instances (every app's without a target) and removes
     * their rotated files; writers keep their descriptors (LogStore.flush). Returns the paths.
     */
    flushLogs: (target: string) => Effect.flatMap(table.resolve(target), flushRows),
    flushAllLogs: () => Effect.suspend(() => flushRows(table.allRows())),

    /** Reopens every open log file at its path, for an outside logrotate that moved them away. */
    reopenLogs: () => logs.reopenAll(),

    /**
     * The last matching log lines of the target, oldest first (docs/architecture.md §7, docs/api.md). A numeric id
     * reads that row's instance; a namespace or `all` reads every app it names, merged in time.
     */
    readLogs: (target: string, query: LogQuery = {}) =>
      Effect.gen(function* () {
        const selected = yield* table.resolve(target)
        const single = /^\d+$/.test(target.trim()) ? selected[0] : undefined
        const perApp = yield* Effect.forEach(table.appNames(selected), (name) =>
          logs.read(
            table.rowsOfApp(name)[0]!.app.definition,
            single === undefined ? query : { ...query, instance: single.instance }
          )
        )
        const merged = perApp.flat()
        if (perApp.length <= 1) return merged
        const sorted = [...merged].sort((a, b) => (a.timestamp ?? "").localeCompare(b.timestamp ?? ""))
        return sorted.slice(-(query.lines ?? DEFAULT_LINES))
      }),

    /** New log lines of the target as they are written, with the same filters (not since/until). */
    followLogs: (target: string, query: LogQuery = {}) =>
      Effect.gen(function* () {
        const selected = yield* table.resolve(target)
        const ids = new Set(selected.map((row) => row.id))
        const now = yield* Clock.currentTimeMillis
        const filter = yield* compileLogQuery(
          { ...query, instance: undefined, since: undefined, until: undefined },
          { instances: Number.MAX_SAFE_INTEGER },
          now
        )
        const instance = /^\d+$/.test(target.trim()) ? null : (query.instance ?? null)
        return bus
          .stream({ logs: true })
          .pipe(
            Stream.filterMap((event) =>
              event._tag === "LogLine" &&
              ids.has(event.id) &&
              (instance === null || event.instance === instance) &&
              entryMatches(filter, event.entry)
                ? Option.some(event.entry)
                : Option.none()
            )
          )
      })
  }
}
