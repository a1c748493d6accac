/**
 * `max_memory_restart` (docs/configuration.md): a row whose process tree uses more memory than
 * its app's limit is asked to restart (its supervisor does it gracefully) and the bus hears a
 * `MemoryLimit` event. Applied to every metrics sample (metricsSampling.ts).
 */
import { Effect } from "effect"
import type { EventBus } from "../events/EventBus"
import type { Row, RowState } from "./Row"

/** Asks `row` to restart when `memory` (bytes, of process `pid`) is over its limit; `state` is its state after the sample. */
export const enforceMemoryLimit = (row: Row, state: RowState, pid: number, memory: number, bus: EventBus) =>
  Effect.gen(function* () {
    const limit = row.app.definition.max_memory_restart
    if (limit === null || state.pid !== pid || memory <= limit) return
    if (state.status !== "online" && state.status !== "starting") return
    // At most one request waits (RestartRequests): the event is published once per restart.
    if (row.requests.offer("memory")) {
      yield* bus.publish({
        _tag: "MemoryLimit",
        id: row.id,
        name: row.app.definition.name,
        instance: row.instance,
        memory,
        limit
      })
    }
  })
