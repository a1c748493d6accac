/**
 * The process table (docs/architecture.md §4): the rows by id, the next id, the lock that guards
 * the table's shape and one lock per app, and how a target (`{id}`, app name, namespace, `all`)
 * names rows. Every other module of ProcessManager works on rows through this.
 */
import { Effect, Option, SubscriptionRef } from "effect"
import { closestKey } from "../config/closestKey"
import { ProcessNotFound } from "../domain/errors"
import { makeKeyedLocks } from "./keyedLocks"
import type { AppRecord, Row, RowState } from "./Row"
import { RestartRequests } from "./RestartRequests"
import { makeRowMetrics } from "./RowMetrics"
import { type Environment, makeSharedEnvironments } from "./sharedEnvironments"
import type { AppDefinition } from "../domain/AppDefinition"

export type ProcessTable = Effect.Effect.Success<ReturnType<typeof makeProcessTable>>

export const makeProcessTable = (firstId: number) =>
  Effect.gen(function* () {
    const rows = new Map<number, Row>()
    let nextId = firstId
    /** Guards the table's shape (adding and removing apps). */
    const tableLock = yield* Effect.makeSemaphore(1)
    /** One lock per app, so a slow reload of one app never holds up the others. */
    const withAppLock = makeKeyedLocks()
    /** Process ids of each row's tree at the last sample (for detailed memory). */
    const lastPids = new Map<number, ReadonlyArray<number>>()

    const byId = (a: Row, b: Row) => a.id - b.id
    const allRows = () => [...rows.values()].sort(byId)
    // Filtered before sorting: called per app in a burst of creations, it sorted every row each time.
    const rowsOfApp = (name: string) => [...rows.values()].filter((row) => row.app.definition.name === name).sort(byId)
    const appNames = (selected: ReadonlyArray<Row>) => [...new Set(selected.map((row) => row.app.definition.name))]

    /**
     * The rows of `selected` that are still in the table, as the table now holds them (a reload
     * may have swapped a row object for its replacement). Called with the app's lock held, it
     * tells a mutation which rows survived while it waited: a row deleted meanwhile is left out,
     * so no process is ever launched for a row nobody tracks.
     */
    const stillListed = (selected: ReadonlyArray<Row>): ReadonlyArray<Row> => {
      const out: Array<Row> = []
      for (const row of selected) {
        const current = rows.get(row.id)
        if (current !== undefined && current.removed !== true) out.push(current)
      }
      return out
    }

    /**
     * Runs `body` once per app of `selected`, each under that app's lock, with the app's rows that
     * are still in the table once the lock is held (apps with none left are skipped). Every
     * mutation goes through here (docs/decisions.md, "One lock per app for every mutation").
     * One after another, the first failure ends the run. Together (`concurrent`), every app's
     * operation runs to its end even when another's fails — an operation cut short between its
     * halt and its relaunch would leave its rows stopped half-way — and the first failure in
     * order is reported once they all have ended.
     */
    const forEachApp = <A, E>(
      selected: ReadonlyArray<Row>,
      body: (name: string, appRows: ReadonlyArray<Row>) => Effect.Effect<A, E>,
      options: { readonly concurrent?: boolean; readonly order?: ReadonlyArray<string> } = {}
    ): Effect.Effect<Array<A>, E> => {
      const names = options.order ?? appNames(selected)
      const forApp = (name: string) =>
        withAppLock(
          name,
          Effect.suspend(() => {
            const appRows = stillListed(selected.filter((row) => row.app.definition.name === name))
            return appRows.length === 0 ? Effect.succeed(Option.none<A>()) : Effect.asSome(body(name, appRows))
          })
        )
      const present = (results: ReadonlyArray<Option.Option<A>>) =>
        results.flatMap((result) => (Option.isSome(result) ? [result.value] : []))
      if (options.concurrent !== true) return Effect.map(Effect.forEach(names, forApp), present)
      // An Either is an Effect: `Effect.all` of the outcomes, in order, fails with the first failure.
      return Effect.flatMap(
        Effect.forEach(names, (name) => Effect.either(forApp(name)), { concurrency: "unbounded" }),
        (outcomes) => Effect.map(Effect.all(outcomes), present)
      )
    }

    /** The target's rows were all deleted while the request waited for them (docs/api.md). */
    const deletedMeanwhile = (target: string) =>
      new ProcessNotFound({
        message: `${target} was deleted by another request while this one waited for it`,
        details: { process_id: target, suggestion: "list the processes; start the app again if you still need it" }
      })

    /** Fails with {@link deletedMeanwhile} when `selected` named rows and none of them is left. */
    const unlessAllGone = (target: string, selected: ReadonlyArray<Row>, survivors: ReadonlyArray<Row>) =>
      selected.length > 0 && survivors.length === 0 && target !== "all"
        ? Effect.fail(deletedMeanwhile(target))
        : Effect.void

    /** `{id}` of the CLI and the API (docs/architecture.md §4): numeric id, `all`, app name, then namespace. */
    const resolve = (target: string): Effect.Effect<ReadonlyArray<Row>, ProcessNotFound> =>
      Effect.suspend(() => {
        const trimmed = target
        const found = /^\d+$/.test(trimmed)
          ? allRows().filter((row) => row.id === Number(trimmed))
          : trimmed === "all"
            ? allRows()
            : rowsOfApp(trimmed).length > 0
              ? rowsOfApp(trimmed)
              : allRows().filter((row) => row.app.definition.namespace === trimmed)
        if (found.length > 0 || (trimmed === "all" && rows.size === 0)) return Effect.succeed(found)
        const names = appNames(allRows())
        const closest = closestKey(trimmed, names)
        return Effect.fail(
          new ProcessNotFound({
            message: `no process with id, name or namespace ${JSON.stringify(target)}`,
            details: {
              process_id: target,
              suggestion:
                closest !== undefined
                  ? `did you mean "${closest}"?`
                  : names.length === 0
                    ? "no app is defined yet: start one first (`pmfx start <command|file>`, or POST /api/processes)"
                    : "list the processes to see their ids, names and namespaces (`pmfx list`, or GET /api/processes)"
            }
          })
        )
      })

    /** The lowest id the target names; PROCESS_NOT_FOUND when it names none. */
    const firstOf = (target: string) =>
      Effect.flatMap(resolve(target), ([row]) =>
        row === undefined
          ? Effect.fail(
              new ProcessNotFound({
                message: "no process is defined",
                details: {
                  process_id: target,
                  suggestion: "start one first (`pmfx start <command|file>`, or POST /api/processes)"
                }
              })
            )
          : Effect.succeed(row)
      )

    /** The ports held by every row (assigned, and runtime overrides), but those of rows in `except`. */
    const heldPorts = (except: ReadonlySet<number> = new Set()) =>
      Effect.gen(function* () {
        const held = new Set<number>()
        for (const row of allRows()) {
          if (except.has(row.id)) continue
          const state = yield* SubscriptionRef.get(row.state)
          for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
        }
        return held
      })

    const shareEnvironment = makeSharedEnvironments()
    /** What the rows of an app run: its definition, and its environment shared with the apps that have the same. */
    const appRecord = (definition: AppDefinition, baseEnv: Environment): AppRecord => ({
      definition,
      baseEnv: shareEnvironment(baseEnv)
    })

    /** A new row object (not yet in the table) with the given first state. */
    const makeRow = (id: number, instance: number, app: AppRecord, initial: RowState) =>
      Effect.gen(function* () {
        const row: Row = {
          id,
          instance,
          app,
          state: yield* SubscriptionRef.make(initial),
          metrics: makeRowMetrics(),
          requests: new RestartRequests(),
          fiber: null
        }
        return row
      })

    /** Takes halted rows out of the table under its lock; returns the ids this call removed. */
    const unlist = (leaving: ReadonlyArray<Row>) =>
      tableLock.withPermits(1)(
        Effect.sync(() => {
          const ids: Array<number> = []
          for (const row of leaving) {
            if (rows.get(row.id) !== row) continue
            rows.delete(row.id)
            lastPids.delete(row.id)
            ids.push(row.id)
          }
          return ids
        })
      )

    return {
      rows,
      tableLock,
      withAppLock,
      lastPids,
      /** The id the next new row will get. */
      nextId: () => nextId,
      /** Hands out the next id. */
      takeId: () => nextId++,
      /** Raises the next id to at least `id` (a restored table continues its saved counter). */
      raiseNextId: (id: number) => {
        nextId = Math.max(nextId, id)
      },
      allRows,
      rowsOfApp,
      appNames,
      stillListed,
      forEachApp,
      deletedMeanwhile,
      unlessAllGone,
      resolve,
      firstOf,
      heldPorts,
      makeRow,
      appRecord,
      unlist
    }
  })
