/**
 * Changing and watching a row's state (Row.ts): every status change is told to the bus as a
 * `ProcessStatus` event, and callers wait for a condition instead of polling.
 */
import { Effect, Option, Stream, SubscriptionRef } from "effect"
import type { ProcessStatus } from "../domain/ProcessStatus"
import type { EventBus } from "../events/EventBus"
import type { Row, RowState } from "./Row"

/** Changes a row's state and, when its status changed, tells the bus. */
export const updateRow = (
  row: Row,
  bus: EventBus,
  change: (state: RowState) => Partial<RowState>,
  exit?: { readonly exit_code?: number | null; readonly signal?: string | null }
): Effect.Effect<RowState> =>
  Effect.gen(function* () {
    const [previous, next] = yield* SubscriptionRef.modify(row.state, (state): [[RowState, RowState], RowState] => {
      const next = { ...state, ...change(state) }
      return [[state, next], next]
    })
    if (previous.status !== next.status && row.retired !== true) {
      yield* bus.publish({
        _tag: "ProcessStatus",
        id: row.id,
        name: row.app.definition.name,
        instance: row.instance,
        status: next.status,
        previous_status: previous.status,
        pid: next.pid,
        ...exit
      })
    }
    return next
  })

export const setStatus = (row: Row, bus: EventBus, status: ProcessStatus, extra: Partial<RowState> = {}) =>
  updateRow(row, bus, () => ({ status, ...extra }))

/** Waits until the row's state satisfies `predicate` (checked on every change). */
export const awaitRow = (row: Row, predicate: (state: RowState) => boolean): Effect.Effect<RowState> =>
  row.state.changes.pipe(Stream.filter(predicate), Stream.runHead, Effect.map(Option.getOrThrow))
