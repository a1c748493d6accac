/**
 * The operations that change rows (docs/cli.md, docs/api.md): create, start, stop, restart,
 * reload, delete, scale, reset, signal, resurrect. Each resolves its target, works app by app
 * under the app's lock (ProcessTable.forEachApp) and fails with PROCESS_NOT_FOUND when every
 * row it named was deleted meanwhile.
 */
import { Effect, Either, SubscriptionRef } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { ProcessAlreadyRunning, ProcessNotFound } from "../domain/errors"
import type { ProcessSummary } from "../domain/ProcessSummary"
import type { EventBus } from "../events/EventBus"
import { forEachAppDependenciesFirst, forEachAppDependentsFirst } from "./bulkOrder"
import { checkAppPaths } from "./checkAppPaths"
import type { ProcessTable } from "./processTable"
import { summaries } from "./processViews"
import { registerApps } from "./registerApps"
import type { makeReloadApp } from "./reloadApp"
import type { Row } from "./Row"
import { isLive, type RowLifecycle } from "./rowLifecycle"
import type { RunOptions } from "./runOptions"
import { type ScaleCount, type ScaleResult, scaleApp } from "./scaleApp"
import type { SignalSpec } from "./signals"
import type { StartError } from "./Supervisor"

export interface ReloadResult {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** Apps with one instance are restarted, not reloaded (nothing could keep serving). */
  readonly restartedInstead: ReadonlyArray<string>
}

export interface OperationDeps {
  readonly table: ProcessTable
  readonly bus: EventBus
  readonly home: string
  readonly lifecycle: RowLifecycle
  readonly reloadApp: ReturnType<typeof makeReloadApp>
}

export const makeProcessOperations = ({ table, bus, home, lifecycle, reloadApp }: OperationDeps) => {
  const { resolve, forEachApp, unlessAllGone } = table
  const { startRows, want } = lifecycle

  /**
   * A creation that fails before its first spawn is not kept (docs/decisions.md, "Applying a
   * file"): the rows of each app whose launch failed and that never had a process leave the
   * table, so fixing the cause and starting again works instead of meeting
   * PROCESS_ALREADY_EXISTS. (An app whose dependency never came online stays, errored, saying why.)
   */
  const discardNeverSpawned = (created: ReadonlyArray<Row>, failures: ReadonlyMap<string, StartError>) =>
    Effect.gen(function* () {
      let removed = 0
      for (const name of failures.keys()) {
        yield* table.withAppLock(
          name,
          Effect.gen(function* () {
            const appRows = table.stillListed(created.filter((row) => row.app.definition.name === name))
            for (const row of appRows) if ((yield* SubscriptionRef.get(row.state)).startedAt !== null) return
            removed += (yield* lifecycle.scaleTable.removeRows(appRows)).length
          })
        )
      }
      if (removed > 0) yield* bus.publish({ _tag: "TableChanged" })
    })

  return {
    /**
     * Adds apps and starts them in dependency order; every row gets an id, none is reused. A
     * row deleted by another request before it could start is not started (its summary says
     * `stopped`).
     */
    create: (
      definitions: ReadonlyArray<AppDefinition>,
      options: { readonly baseEnv?: Readonly<Record<string, string>> } = {}
    ) =>
      Effect.gen(function* () {
        // Paths are checked before anything is added: an app with an unusable path is not created.
        yield* checkAppPaths(definitions, home)
        const created = yield* registerApps(table, definitions, options.baseEnv ?? {})
        const failures = new Map<string, StartError>()
        // PM2's autostart: false registers the app stopped; `start` runs it (it stays stopped after a daemon restart).
        const started = yield* Effect.either(
          startRows(
            created.filter((row) => row.app.definition.autostart),
            { desired: "running", launchFailures: failures, pathsChecked: true }
          )
        )
        yield* discardNeverSpawned(created, failures)
        if (Either.isLeft(started)) return yield* Effect.fail(started.left)
        return yield* summaries(created)
      }),

    /** Starts the rows that are not running; PROCESS_ALREADY_RUNNING when all of them run. */
    start: (target: string) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const { listed, launched } = yield* startRows(selected, {
          desired: "running",
          pick: (row, state) => !isLive(row, state),
          change: () => ({ portOverride: null })
        })
        yield* unlessAllGone(target, selected, listed)
        if (launched.length === 0 && listed.length > 0) {
          const state = yield* SubscriptionRef.get(listed[0]!.state)
          return yield* new ProcessAlreadyRunning({
            // `pmfx start 3`: "process 3 is already running", not "3 is already running".
            message: `${/^\d+$/.test(target) ? `process ${target}` : target} is already running`,
            details: {
              process_id: target,
              pid: state.pid ?? 0,
              suggestion: `use \`pmfx restart ${target}\` to restart it`
            }
          })
        }
        return yield* summaries(listed)
      }),

    /**
     * Stops the rows (idempotent): SIGTERM to each process group, SIGKILL after `kill_timeout`.
     * Every row ends `stopped`, an `errored` one included.
     */
    stop: (target: string) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const stopped = yield* forEachAppDependentsFirst(table, selected, (_name, appRows) =>
          Effect.zipRight(
            want(appRows, "stopped"),
            Effect.as(Effect.forEach(appRows, lifecycle.stopRow, { concurrency: "unbounded", discard: true }), appRows)
          )
        )
        yield* unlessAllGone(target, selected, stopped.flat())
        return yield* summaries(stopped.flat())
      }),

    restart: (target: string, options: RunOptions = {}) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        // Dependencies first, the apps of one dependency level together; a dependent restarted
        // with its dependencies waits for their conditions again, as at start (docs/configuration.md, depends_on).
        const together = new Set(table.appNames(selected))
        const restarted = (yield* forEachAppDependenciesFirst(table, selected, (name, appRows) =>
          lifecycle.restartApp(name, appRows, options, together)
        )).flat()
        yield* unlessAllGone(target, selected, restarted)
        return yield* summaries(restarted)
      }),

    /** Replaces instances one at a time, each waiting for its replacement to be ready (docs/architecture.md §4). */
    reload: (target: string, options: RunOptions = {}) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const restartedInstead: Array<string> = []
        const reloaded = (yield* forEachApp(selected, (name, appRows) =>
          Effect.map(reloadApp(name, appRows, options), (restarted) => {
            if (restarted) restartedInstead.push(name)
            return appRows
          })
        )).flat()
        yield* unlessAllGone(target, selected, reloaded)
        // A reload may have swapped row objects (auto: ports): report the current ones.
        const current = reloaded.map((row) => table.rows.get(row.id) ?? row)
        return { rows: yield* summaries(current), restartedInstead } satisfies ReloadResult
      }),

    /**
     * Stops and removes the rows; returns the ids this call removed (a row another request
     * deleted first is not counted). PROCESS_NOT_FOUND when every row was deleted meanwhile.
     */
    delete: (target: string) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const deleted = yield* forEachAppDependentsFirst(table, selected, (_name, appRows) =>
          Effect.gen(function* () {
            // Marked first: the supervisor never spawns again for a removed row.
            for (const row of appRows) row.removed = true
            yield* Effect.forEach(appRows, lifecycle.halt, { concurrency: "unbounded", discard: true })
            return yield* table.unlist(appRows)
          })
        )
        const ids = deleted.flat().sort((a, b) => a - b)
        yield* unlessAllGone(target, selected, ids.length === 0 ? [] : selected)
        if (ids.length > 0) yield* bus.publish({ _tag: "TableChanged" })
        return ids
      }),

    /**
     * Changes an app's instance count live (scaleApp.ts): `count` is the new count or `{by}` a
     * change of it. Takes an app name only (an id or a namespace names no one count).
     */
    scale: (name: string, count: ScaleCount) =>
      Effect.gen(function* () {
        const appRows = table.rowsOfApp(name)
        if (appRows.length === 0) {
          const found = yield* resolve(name)
          return yield* new ProcessNotFound({
            message: `${JSON.stringify(name)} is not an app name: scale changes the instance count of one app`,
            details: {
              process_id: name,
              suggestion: `name the app, like \`pmfx scale ${table.appNames(found)[0] ?? "<app>"} 4\``
            }
          })
        }
        const [result] = yield* forEachApp(appRows, (_name, current) =>
          scaleApp(lifecycle.scaleTable, current, count, (added) =>
            Effect.forEach(added, (row) => lifecycle.launch(row), { concurrency: "unbounded", discard: true })
          )
        )
        if (result === undefined) return yield* Effect.fail(table.deletedMeanwhile(name))
        yield* bus.publish({ _tag: "TableChanged" })
        const processes = yield* summaries(table.rowsOfApp(name))
        return { ...result, processes } satisfies ScaleResult & { processes: ReadonlyArray<ProcessSummary> }
      }),

    /** Sends `signal` to the process of every running instance of the target; returns the ids signalled. */
    sendSignal: (target: string, signal: SignalSpec) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const signalled: Array<number> = []
        for (const row of selected) {
          const state = yield* SubscriptionRef.get(row.state)
          if (state.pid === null) continue
          try {
            process.kill(state.pid, signal.number)
            signalled.push(row.id)
          } catch {
            // Exited meanwhile: its supervisor reports the exit.
          }
        }
        return { signalled, processes: yield* summaries(selected) }
      }),

    /**
     * Zeroes the target's restart counts, abnormal exits and unstable exits in a row (what sends
     * a crash-looping row to `errored`); the status stays as it is.
     */
    reset: (target: string) =>
      Effect.gen(function* () {
        const selected = yield* resolve(target)
        const zero = (row: Row) =>
          SubscriptionRef.update(row.state, (state) => ({ ...state, restarts: 0, unstableRestarts: 0, errors: 0 }))
        const reset = (yield* forEachApp(selected, (_name, appRows) =>
          Effect.as(Effect.forEach(appRows, zero, { discard: true }), appRows)
        )).flat()
        yield* unlessAllGone(target, selected, reset)
        yield* bus.publish({ _tag: "TableChanged" })
        return yield* summaries(reset)
      }),

    /** Starts every row the user wants running that does not run (after `kill`, docs/architecture.md §5). */
    resurrect: () =>
      Effect.gen(function* () {
        const wanted: Array<Row> = []
        for (const row of table.allRows()) {
          const state = yield* SubscriptionRef.get(row.state)
          if (state.desired === "running" && !isLive(row, state)) wanted.push(row)
        }
        yield* Effect.ignore(
          startRows(wanted, { pick: (row, state) => state.desired === "running" && !isLive(row, state) })
        )
        return yield* summaries(table.stillListed(wanted))
      })
  }
}
