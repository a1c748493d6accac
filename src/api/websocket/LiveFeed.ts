/**
 * Turns bus events into `/ws` messages (docs/architecture.md §9). Every session reads the same events, so a
 * metrics sample — which also needs the rows' uptime and restarts and a reading of the host — is
 * built into its two messages once and shared, not once per connected client.
 */
import { Effect, Option } from "effect"
import { DaemonInfo } from "../../daemon/DaemonInfo"
import type { PmfxEvent } from "../../events/PmfxEvent"
import { SystemStatsReader } from "../../monitor/systemStats"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { alertMessage, processStatusMessage, serverMessage } from "./ServerMessage"

type MetricsSample = Extract<PmfxEvent, { readonly _tag: "MetricsSample" }>

export class LiveFeed extends Effect.Service<LiveFeed>()("pmfx/LiveFeed", {
  effect: Effect.gen(function* () {
    const manager = yield* ProcessManager
    const stats = yield* SystemStatsReader
    const daemon = yield* DaemonInfo

    /** `process_list`: every row's summary, as `GET /api/processes` gives them. */
    const processList = Effect.map(manager.list(), (rows) => serverMessage("process_list", rows))

    const sampleMessages = (sample: MetricsSample): Effect.Effect<ReadonlyArray<string>> =>
      Effect.gen(function* () {
        // Every row, as docs/architecture.md §9 says: one without a live process (stopped, errored, restarting)
        // has the figures its summary has then — 0 cpu, 0 memory, uptime 0h 0m 0s — so a client
        // can replace its whole table with each sample.
        const measured = new Map(sample.processes.map((metric) => [metric.id, metric]))
        const processes = (yield* manager.list()).map((row) => {
          const metric = measured.get(row.id)
          return {
            id: row.id,
            name: row.name,
            instance: row.instance,
            cpu_usage: metric?.cpu_usage ?? row.cpu_usage,
            memory_usage: metric?.memory_usage ?? row.memory_usage,
            uptime: row.uptime,
            restarts: row.restarts
          }
        })
        const messages = [serverMessage("process_metrics", { processes }, sample.timestamp)]
        // A host reading that fails (the disk went away) skips this sample's system message only.
        const host = yield* stats.readSystemStats(daemon.home).pipe(Effect.option)
        if (Option.isSome(host)) messages.push(serverMessage("system_metrics", host.value, sample.timestamp))
        return messages
      })

    // The last sample's messages: sessions take each sample within moments of each other.
    let lastSample: { readonly sample: MetricsSample; readonly messages: Effect.Effect<ReadonlyArray<string>> } | null =
      null

    /** The messages an event becomes for every session (log lines are per session: see `logMessage`). */
    const messagesOf = (event: PmfxEvent): Effect.Effect<ReadonlyArray<string>> => {
      switch (event._tag) {
        case "ProcessStatus":
          return Effect.succeed([processStatusMessage(event)])
        case "Alert":
          return Effect.succeed([alertMessage(event)])
        // Apps were added or removed: a fresh list, so clients learn of new rows.
        case "TableChanged":
          return Effect.map(processList, (message) => [message])
        case "MetricsSample":
          return Effect.gen(function* () {
            let current = lastSample
            if (current?.sample !== event) {
              current = { sample: event, messages: yield* Effect.cached(sampleMessages(event)) }
              lastSample = current
            }
            return yield* current.messages
          })
        default:
          return Effect.succeed([])
      }
    }

    return { processList, messagesOf }
  })
}) {}
