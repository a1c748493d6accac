/** Tunables of the engine, with the defaults of docs/architecture.md §4; tests and embedders may override them. */
import { Context, Layer } from "effect"

export interface EngineSettings {
  /** How often the metrics sampler reads every row's process tree while something needs it (src/monitor/SamplingDemand.ts). */
  readonly metricsIntervalMs: number
  /** How often it samples when nothing does (never faster than `metricsIntervalMs`). */
  readonly backgroundMetricsMs: number
  /** How long a dependent app waits for its `depends_on` apps to be online. */
  readonly dependencyTimeoutMs: number
  /** The id given to the first row (the daemon continues its saved counter). */
  readonly firstId: number
}

export const defaultEngineSettings: EngineSettings = {
  metricsIntervalMs: 1_000,
  backgroundMetricsMs: 10_000,
  dependencyTimeoutMs: 60_000,
  firstId: 0
}

export class EngineOptions extends Context.Tag("pmfx/EngineOptions")<EngineOptions, EngineSettings>() {
  static readonly layer = (settings: Partial<EngineSettings> = {}) =>
    Layer.succeed(EngineOptions, { ...defaultEngineSettings, ...settings })
}
