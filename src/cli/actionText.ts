/**
 * What `stop`, `restart` and `delete` print when they succeed, shared by the CLI's commands and the launcher's
 * fast actions (fastAction.ts), which must print the same bytes. No Effect import.
 */
import type { ProcessSummary } from "../domain/ProcessSummary"
import { plural } from "../shared/plural"
import { style } from "./style"

/** The line above the table of the rows `stop` acted on. */
export const stoppedHeadline = (rows: ReadonlyArray<ProcessSummary>): string =>
  `${style.green(process.stdout)("stopped")} ${plural(rows.length, "process", "processes")}`

/** The line above the table of the rows `restart` acted on; `qualifier` says how (restart.ts `runQualifier`). */
export const restartedHeadline = (rows: ReadonlyArray<ProcessSummary>, qualifier = ""): string =>
  `${style.green(process.stdout)("restarted")} ${plural(rows.length, "process", "processes")}${qualifier}`

/** `delete`'s message in its JSON document (as the daemon words it). */
export const deletedMessage = (deleted: ReadonlyArray<number>): string =>
  `deleted ${plural(deleted.length, "process", "processes")}`

/** `delete`'s one line for people: how many rows went, and their ids. */
export const deletedLine = (deleted: ReadonlyArray<number>): string =>
  deleted.length === 0
    ? style.dim(process.stdout)("nothing to delete")
    : `${style.green(process.stdout)("deleted")} ${plural(deleted.length, "process", "processes")} (${deleted.length === 1 ? "id" : "ids"} ${deleted.join(", ")})`
