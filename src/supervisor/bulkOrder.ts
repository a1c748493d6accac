/**
 * The order of operations on several apps (docs/architecture.md §4, depends_on): starts and
 * restarts go dependencies first; stops, deletes and shutdown go dependents first, the apps of
 * one dependency level together.
 */
import { Effect } from "effect"
import { dependencyOrder, stopLevels } from "./dependencyOrder"
import type { ProcessTable } from "./processTable"
import type { Row } from "./Row"

/** The apps of `selected` in dependency order (dependencies first). */
export const startOrder = (table: ProcessTable, selected: ReadonlyArray<Row>) =>
  dependencyOrder(
    table.appNames(selected).map((name) => selected.find((row) => row.app.definition.name === name)!.app.definition)
  ).map((app) => app.name)

/**
 * ProcessTable.forEachApp for stopping several apps (stop, delete, kill): in reverse dependency
 * order, dependents first. The apps of one level stop together; the next level starts once
 * they all have stopped.
 */
export const forEachAppDependentsFirst = <A, E>(
  table: ProcessTable,
  selected: ReadonlyArray<Row>,
  body: (name: string, appRows: ReadonlyArray<Row>) => Effect.Effect<A, E>
) =>
  Effect.map(
    Effect.forEach(
      stopLevels(
        table.appNames(selected),
        table.allRows().map((row) => row.app.definition)
      ),
      (level) =>
        table.forEachApp(
          selected.filter((row) => level.includes(row.app.definition.name)),
          body,
          { concurrent: true }
        )
    ),
    (levels) => levels.flat()
  )

/** Stops every row, dependents first, without changing what the user wants (kill, shutdown). */
export const haltAll = (table: ProcessTable, halt: (row: Row) => Effect.Effect<void>) => () =>
  Effect.suspend(() =>
    Effect.forEach(
      stopLevels(
        table.appNames(table.allRows()),
        table.allRows().map((row) => row.app.definition)
      ),
      (level) =>
        Effect.forEach(
          table.allRows().filter((row) => level.includes(row.app.definition.name)),
          halt,
          { concurrency: "unbounded", discard: true }
        ),
      { discard: true }
    )
  )
