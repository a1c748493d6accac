// What the supervisor of a row is given (SupervisorContext), an adopted process, and its start errors.

import type { Context, Effect } from "effect"
import type { ClusterHost } from "../cluster/ClusterHost"
import type { FileError, InvalidConfig, ProcessStartFailed } from "../domain/errors"
import type { EventBus } from "../events/EventBus"
import type { LogStore } from "../logs/LogStore"
import type { Spawner } from "./Spawner"
import type { PipePair, StdioPipes } from "./StdioPipes"

export interface SupervisorContext {
  readonly bus: EventBus
  readonly logs: LogStore
  readonly home: string
  readonly pipes: StdioPipes
  /** True once the host hands its apps over to a successor: closing a row leaves its process running. */
  readonly handingOff: () => boolean
  /** Started right after each spawn (the daemon saves its pid). */
  readonly spawned: () => Effect.Effect<void>
  /** Runs the workers of cluster-mode apps. */
  readonly cluster: ClusterHost
  /** Starts, stops and adopts the processes of fork-mode apps. */
  readonly spawner: Context.Tag.Service<Spawner>
}

/** A live process of an earlier daemon that this row takes over (docs/decisions.md, "Apps outlive the daemon"). */
export interface Adoption {
  readonly pid: number
  /** Its /proc start time: checked by the caller, watched for a reused pid. */
  readonly startTime: number
  /** Epoch ms it started (its uptime continues). */
  readonly startedAt: number
  readonly pipes: PipePair
}

export type StartError = ProcessStartFailed | InvalidConfig | FileError
