/**
 * `pmfx alerts <app>` (docs/cli.md): the alerts or webhook deliveries of the processes a selector
 * names, picked from the daemon's history on this side. The selector is resolved as `pmfx list`'s
 * filters are (listFilter.ts: an id, `all`, an app name, then a namespace) against the processes the
 * daemon runs now; an entry belongs to a process when both its id and its name match (a deleted
 * app's id may have gone to another app since). A name no process has any more still finds that
 * app's entries; a selector that names nothing at all is PROCESS_NOT_FOUND.
 */
import { ProcessNotFound } from "../domain/errors"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { filterRows } from "./listFilter"

interface Entry {
  readonly process: { readonly id: number; readonly name: string }
}

export const entriesOf = <E extends Entry>(
  rows: ReadonlyArray<ProcessSummary>,
  entries: ReadonlyArray<E>,
  selector: string
): ReadonlyArray<E> | ProcessNotFound => {
  if (selector === "all") return entries
  const named = filterRows(rows, [selector])
  if (named instanceof ProcessNotFound) {
    const deleted = entries.filter((entry) => entry.process.name === selector)
    return deleted.length > 0 ? deleted : named
  }
  const keys = new Set(named.map((row) => `${row.id}|${row.name}`))
  return entries.filter((entry) => keys.has(`${entry.process.id}|${entry.process.name}`))
}
