/** The states of a process row (docs/architecture.md §4). */
import { Schema } from "effect"

export const ProcessStatus = Schema.Literal("starting", "online", "stopping", "stopped", "restarting", "errored")
export type ProcessStatus = typeof ProcessStatus.Type

export const processStatuses: ReadonlyArray<ProcessStatus> = ProcessStatus.literals

/** States in which the row has (or is about to have) a live process. */
export const isRunningStatus = (status: ProcessStatus): boolean =>
  status === "starting" || status === "online" || status === "restarting" || status === "stopping"
