/**
 * The engine as one layer: ProcessManager with everything it needs. `Engine.layer()` reads
 * `PMFX_HOME` like the CLI does; `Engine.at(home)` puts everything under an explicit folder. The
 * daemon and the container runtime build it through DaemonGraph (daemon/DaemonGraph.ts).
 */
import { Layer } from "effect"
import { Paths } from "../shared/Paths"
import { EventBus } from "../events/EventBus"
import { LogOutput, type LogOutputSettings } from "../logs/LogOutput"
import { LogStore } from "../logs/LogStore"
import { MetricsSampler } from "../monitor/MetricsSampler"
import { SamplingDemand } from "../monitor/SamplingDemand"
import { defaultEngineSettings, EngineOptions, type EngineSettings } from "./EngineOptions"
import { ProcessManager } from "./ProcessManager"
import { Spawner } from "./Spawner"
import { StdioPipes } from "./StdioPipes"

const withPaths = <E>(
  paths: Layer.Layer<Paths, E>,
  settings: Partial<EngineSettings>,
  logOutput: LogOutputSettings | undefined
) => {
  const { metricsIntervalMs, backgroundMetricsMs } = { ...defaultEngineSettings, ...settings }
  return ProcessManager.Default.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        LogStore.DefaultWithoutDependencies.pipe(
          Layer.provide(logOutput === undefined ? LogOutput.files : LogOutput.layer(logOutput))
        ),
        StdioPipes.Default,
        EventBus.Default,
        MetricsSampler.Default,
        SamplingDemand.layer(metricsIntervalMs, backgroundMetricsMs),
        Spawner.Default,
        EngineOptions.layer(settings)
      )
    ),
    Layer.provideMerge(paths)
  )
}

export const Engine = {
  /** Under `PMFX_HOME` (or its default). */
  layer: (settings: Partial<EngineSettings> = {}, logOutput?: LogOutputSettings) =>
    withPaths(Paths.Default, settings, logOutput),
  /** Under an explicit home folder. `logOutput`: where app output goes (default: every app's log files). */
  at: (home: string, settings: Partial<EngineSettings> = {}, logOutput?: LogOutputSettings) =>
    withPaths(Paths.at(home), settings, logOutput)
}
