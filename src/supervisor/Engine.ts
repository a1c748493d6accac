/**
 * The engine as one layer: ProcessManager with everything it needs. `Engine.layer()` reads
 * `PMFX_HOME` like the CLI does; `Engine.at(home)` puts everything under an explicit folder.
 */
import { Layer } from "effect"
import { Paths } from "../shared/Paths"
import { EventBus } from "../events/EventBus"
import { LogStore } from "../logs/LogStore"
import { MetricsSampler } from "../monitor/MetricsSampler"
import { EngineOptions, type EngineSettings } from "./EngineOptions"
import { ProcessManager } from "./ProcessManager"
import { Spawner } from "./Spawner"
import { StdioPipes } from "./StdioPipes"

const withPaths = <E>(paths: Layer.Layer<Paths, E>, settings: Partial<EngineSettings>) =>
  ProcessManager.Default.pipe(
    Layer.provideMerge(
      Layer.mergeAll(LogStore.DefaultWithoutDependencies, StdioPipes.Default, EventBus.Default, MetricsSampler.Default, Spawner.Default, EngineOptions.layer(settings))
    ),
    Layer.provideMerge(paths)
  )

export const Engine = {
  /** Under `PMFX_HOME` (or its default). */
  layer: (settings: Partial<EngineSettings> = {}) => withPaths(Paths.Default, settings),
  /** Under an explicit home folder. */
  at: (home: string, settings: Partial<EngineSettings> = {}) => withPaths(Paths.at(home), settings)
}
