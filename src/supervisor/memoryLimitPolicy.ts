/**
 * `max_memory_restart` (docs/configuration.md): a row whose process tree uses more memory than
 * its app's limit is asked to restart (its supervisor does it gracefully) and the bus hears a
 * `MemoryLimit` event. Applied to every metrics sample (metricsSampling.ts).
 */
import { Effect } from "effect"
import type { EventBus } from "../events/EventBus"
import type { Row, RowState } from "./Row"

/** Asks `row` to restart when `memory` (bytes, of process `pid`) is over its limit; `state` is its state after the sample. */
export const enforceMemoryLimit = (
  row: Row,
  state: RowState,
  pid: number,
  memory: number,
  bus: EventBus
): Effect.Effect<void> => {
  // It runs for every row at every sample, and most rows have no limit: nothing is built for those.
  const limit = row.app.definition.max_memory_restart
  if (limit === null) return Effect.void
  return Effect.suspend(() => {
    if (state.pid !== pid || memory <= limit) return Effect.void
    if (state.status !== "online" && state.status !== "starting") return Effect.void
    // At most one request waits (RestartRequests): the event is published once per restart.
    if (!row.requests.offer("memory")) return Effect.void
    return bus.publish({
      _tag: "MemoryLimit",
      id: row.id,
      name: row.app.definition.name,
      instance: row.instance,
      memory,
      limit
    })
  })
}
