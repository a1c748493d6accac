/** Handler of `GET /metrics` (docs/metrics.md): reads the engine's state and renders it for Prometheus. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { DaemonInfo } from "../../daemon/DaemonInfo"
import { LogStore } from "../../logs/LogStore"
import { ApiTraffic } from "../../metrics/ApiTraffic"
import { collectMetrics, type MetricsRow } from "../../metrics/collectMetrics"
import { readDaemonSelf } from "../../metrics/daemonSelf"
import { render } from "../../metrics/Exposition"
import { SamplingDemand } from "../../monitor/SamplingDemand"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { currentFigures } from "../../supervisor/RowMetrics"
import { PmfxApi } from "../../shared/Api"

export const MetricsHandlers = HttpApiBuilder.group(PmfxApi, "metrics", (handlers) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const logs = yield* LogStore
    const traffic = yield* ApiTraffic
    const daemon = yield* DaemonInfo
    const demand = yield* SamplingDemand

    /** Every row with its state, read as `pmfx list` reads them: a scrape gets a sample no older than a second. */
    const rows = Effect.gen(function* () {
      yield* demand.fresh
      // "all" on an empty table is an empty list, never PROCESS_NOT_FOUND.
      const all = yield* manager.rowsFor("all").pipe(Effect.orElseSucceed(() => []))
      const out: Array<MetricsRow> = []
      for (const row of all) {
        const state = yield* manager.rowState(row)
        out.push({
          name: row.app.definition.name,
          namespace: row.app.definition.namespace,
          instance: row.instance,
          state,
          figures: currentFigures(row.metrics, state)
        })
      }
      return out
    })

    return handlers.handle("scrape", () =>
      Effect.gen(function* () {
        const self = yield* readDaemonSelf(daemon.startedAt)
        const families = yield* collectMetrics({
          rows: yield* rows,
          logCounts: logs.counts,
          traffic,
          self,
          droppedLogLines: logs.health().dropped_lines
        })
        return render(families)
      })
    )
  })
)
