/**
 * The engine as one layer: ProcessManager with everything it needs. `Engine.layer()` reads
 * `PMFX_HOME` like the CLI does; `Engine.at(home)` puts everything under an explicit folder.
 */
import { Layer } from "effect"
import { Paths } from "../daemon/Paths"
import { EventBus } from "../events/EventBus"
import { LogStore } from "../logs/LogStore"
import { MetricsSampler } from "../monitor/MetricsSampler"
import { SamplingDemand } from "../monitor/SamplingDemand"
import { defaultEngineSettings, EngineOptions, type EngineSettings } from "./EngineOptions"
import { ProcessManager } from "./ProcessManager"
import { StdioPipes } from "./StdioPipes"

const withPaths = <E>(paths: Layer.Layer<Paths, E>, settings: Partial<EngineSettings>) => {
  const { metricsIntervalMs, backgroundMetricsMs } = { ...defaultEngineSettings, ...settings }
  return ProcessManager.Default.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        LogStore.DefaultWithoutDependencies,
        StdioPipes.Default,
        EventBus.Default,
        MetricsSampler.Default,
        SamplingDemand.layer(metricsIntervalMs, backgroundMetricsMs),
        EngineOptions.layer(settings)
      )
    ),
    Layer.provideMerge(paths)
  )
}

export const Engine = {
  /** Under `PMFX_HOME` (or its default). */
  layer: (settings: Partial<EngineSettings> = {}) => withPaths(Paths.Default, settings),
  /** Under an explicit home folder. */
  at: (home: string, settings: Partial<EngineSettings> = {}) => withPaths(Paths.at(home), settings)
}
