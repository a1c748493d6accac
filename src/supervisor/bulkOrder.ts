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
 * The names of `order` (apps in dependency order, see {@link startOrder}) grouped for starting:
 * an app whose `depends_on` names none of them is in the first group, any other one group after
 * its deepest dependency among them — as a file's apps are applied (applyApps.ts, applyLevels).
 */
export const startLevels = (
  order: ReadonlyArray<string>,
  definitionOf: (name: string) => { readonly depends_on: ReadonlyArray<{ readonly name: string }> }
): ReadonlyArray<ReadonlyArray<string>> => {
  const depths = new Map<string, number>()
  const levels: Array<Array<string>> = []
  for (const name of order) {
    // Dependency order: a dependency among them has its depth already.
    let depth = 0
    for (const dependency of definitionOf(name).depends_on) {
      const of = depths.get(dependency.name)
      if (of !== undefined) depth = Math.max(depth, of + 1)
    }
    depths.set(name, depth)
    ;(levels[depth] ??= []).push(name)
  }
  return levels
}

/**
 * ProcessTable.forEachApp for starting or restarting several apps: dependencies first, by
 * {@link startLevels}. The apps of one level go together (their spawns and state saves make one
 * burst); the next level starts once they all are done. The results come in dependency order.
 */
export const forEachAppDependenciesFirst = <A, E>(
  table: ProcessTable,
  selected: ReadonlyArray<Row>,
  body: (name: string, appRows: ReadonlyArray<Row>) => Effect.Effect<A, E>
): Effect.Effect<Array<A>, E> =>
  Effect.suspend(() => {
    const order = startOrder(table, selected)
    const definitions = new Map(selected.map((row) => [row.app.definition.name, row.app.definition]))
    const results = new Map<string, A>()
    return Effect.map(
      Effect.forEach(
        startLevels(order, (name) => definitions.get(name)!),
        (level) =>
          table.forEachApp(
            selected,
            (name, appRows) => Effect.map(body(name, appRows), (result) => void results.set(name, result)),
            { concurrent: true, order: level }
          ),
        { discard: true }
      ),
      () => order.flatMap((name) => (results.has(name) ? [results.get(name)!] : []))
    )
  })

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
