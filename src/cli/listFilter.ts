/**
 * `pmfx list <id|name|namespace>...` (and `ls`, `ps`): the rows a filter names, resolved as every
 * selector is (docs/cli.md, "Targets"): a number is an id, then `all`, then an app name, then a
 * namespace. Several filters show the rows of any of them. Done on the rows `list` already has,
 * so the table needs one request.
 */
import { closestKey } from "../config/closestKey"
import { ProcessNotFound } from "../domain/errors"
import type { ProcessSummary } from "../domain/ProcessSummary"

const rowsOf = (rows: ReadonlyArray<ProcessSummary>, filter: string): ReadonlyArray<ProcessSummary> => {
  if (/^\d+$/.test(filter)) return rows.filter((row) => row.id === Number(filter))
  if (filter === "all") return rows
  const byName = rows.filter((row) => row.name === filter)
  return byName.length > 0 ? byName : rows.filter((row) => row.namespace === filter)
}

/** The rows of the filters, in id order; the first filter that names nothing is PROCESS_NOT_FOUND. */
export const filterRows = (
  rows: ReadonlyArray<ProcessSummary>,
  filters: ReadonlyArray<string>
): ReadonlyArray<ProcessSummary> | ProcessNotFound => {
  if (filters.length === 0) return rows
  const ids = new Set<number>()
  for (const filter of filters) {
    const found = rowsOf(rows, filter)
    if (found.length === 0) {
      const closest = closestKey(filter, new Set(rows.flatMap((row) => [row.name, row.namespace])))
      return new ProcessNotFound({
        message: `no process with id, name or namespace ${JSON.stringify(filter)}`,
        details: {
          process_id: filter,
          suggestion:
            closest === undefined
              ? "run `pmfx list` without a filter to see the ids, names and namespaces"
              : `did you mean ${JSON.stringify(closest)}?`
        }
      })
    }
    for (const row of found) ids.add(row.id)
  }
  return rows.filter((row) => ids.has(row.id))
}
