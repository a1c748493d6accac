/**
 * The table as saved and brought back (docs/architecture.md §5): a snapshot of every app and row
 * (EngineSnapshot, what the daemon writes to state.json), and the restore of one — saved ids,
 * ports and restart counts, live processes of an earlier daemon adopted, wanted rows started.
 */
import { Effect, Option, SubscriptionRef } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import type { EventBus } from "../events/EventBus"
import { readStartTime } from "../monitor/procfs"
import type { EngineSnapshot, RowSnapshot } from "./EngineSnapshot"
import type { ProcessTable } from "./processTable"
import { summaries } from "./processViews"
import { hasHealthCheck, initialRowState, type Row } from "./Row"
import type { RowLifecycle } from "./rowLifecycle"
import type { Adoption } from "./Supervisor"

/** Everything needed to bring the table back after a restart of the host (see EngineSnapshot). */
export const snapshotOf = (table: ProcessTable): Effect.Effect<EngineSnapshot> =>
  Effect.gen(function* () {
    const apps = new Map<
      string,
      { definition: AppDefinition; env: Readonly<Record<string, string>>; rows: Array<RowSnapshot> }
    >()
    for (const row of table.allRows()) {
      const state = yield* SubscriptionRef.get(row.state)
      const name = row.app.definition.name
      let entry = apps.get(name)
      if (entry === undefined) {
        entry = { definition: row.app.definition, env: row.app.baseEnv, rows: [] }
        apps.set(name, entry)
      }
      entry.rows.push({
        id: row.id,
        instance: row.instance,
        port: state.port,
        restarts: state.restarts,
        desired: state.desired,
        pid: state.pid,
        pid_start_time: state.pid === null ? null : Option.getOrNull(yield* readStartTime(state.pid)),
        started_at: state.pid === null ? null : state.startedAt,
        pipes: state.pid === null ? null : state.pipes
      })
    }
    return { next_id: table.nextId(), apps: [...apps.values()] }
  })

export interface RestoreOptions {
  readonly start?: boolean
  /** Rows not to start, though wanted running (held by `pmfx kill` until `resurrect`). */
  readonly keepStopped?: ReadonlySet<number>
  /** Live processes of an earlier daemon to take over, by row id (they are not started again). */
  readonly adopt?: ReadonlyMap<number, Adoption>
}

/**
 * Puts saved apps back with their ids, ports and restart counts, and starts the rows the user
 * wanted running. Apps whose name is already in the table are skipped. A row that cannot
 * start ends `errored`; the restore itself does not fail.
 */
export const restoreInto =
  (table: ProcessTable, lifecycle: RowLifecycle, bus: EventBus) =>
  (snapshot: EngineSnapshot, options: RestoreOptions = {}) =>
    Effect.gen(function* () {
      const restored = yield* table.tableLock.withPermits(1)(
        Effect.gen(function* () {
          const created: Array<Row> = []
          for (const app of snapshot.apps) {
            if (table.rowsOfApp(app.definition.name).length > 0) continue
            const record = table.appRecord(app.definition, app.env)
            for (const saved of app.rows) {
              if (table.rows.has(saved.id)) continue
              const row = yield* table.makeRow(saved.id, saved.instance, record, {
                ...initialRowState(saved.port, hasHealthCheck(app.definition)),
                restarts: saved.restarts,
                desired: saved.desired
              })
              table.rows.set(row.id, row)
              created.push(row)
            }
          }
          table.raiseNextId(Math.max(snapshot.next_id, ...table.allRows().map((row) => row.id + 1)))
          return created
        })
      )
      yield* bus.publish({ _tag: "TableChanged" })
      const adopt = options.adopt ?? new Map<number, Adoption>()
      // Adopted first: their processes run already, and apps that depend on them may wait for them.
      yield* Effect.forEach(
        restored.filter((row) => adopt.has(row.id)),
        (row) =>
          table.withAppLock(
            row.app.definition.name,
            Effect.ignore(lifecycle.launch(row, () => ({}), adopt.get(row.id)))
          ),
        { concurrency: "unbounded", discard: true }
      )
      const wanted: Array<Row> = []
      for (const row of restored) {
        if (
          !adopt.has(row.id) &&
          options.keepStopped?.has(row.id) !== true &&
          (yield* SubscriptionRef.get(row.state)).desired === "running"
        )
          wanted.push(row)
      }
      if (options.start !== false) {
        yield* Effect.ignore(lifecycle.startRows(wanted, { pick: (_row, state) => state.desired === "running" }))
      }
      return yield* summaries(restored)
    })
