/**
 * Process trees from a {@link ProcessTable}: a row's metrics cover its leader and every descendant
 * (docs/architecture.md §4), because `npm start` or `sh -c` wrappers hold almost nothing themselves.
 */
import type { ProcessTable } from "./procfs"

type ChildrenIndex = ReadonlyMap<number, ReadonlyArray<number>>

/**
 * The children index of each table, built on first use: one sample asks for the trees of many rows,
 * and walking the whole table once per row would be quadratic. Tables are fresh per sample, so the
 * weak keys let each index go with its table.
 */
const indexes = new WeakMap<ProcessTable, ChildrenIndex>()

const childrenIndex = (table: ProcessTable): ChildrenIndex => {
  const cached = indexes.get(table)
  if (cached !== undefined) return cached
  const index = new Map<number, Array<number>>()
  for (const stat of table.values()) {
    const siblings = index.get(stat.ppid)
    if (siblings === undefined) index.set(stat.ppid, [stat.pid])
    else siblings.push(stat.pid)
  }
  indexes.set(table, index)
  return index
}

/**
 * `rootPid` followed by all its descendants (by parent pid), each once. Empty when `rootPid` is not in
 * the table (it has exited). A table read over a few milliseconds can show a recycled pid as its own
 * ancestor, so the walk never visits a pid twice.
 */
export const descendantsOf = (rootPid: number, table: ProcessTable): ReadonlyArray<number> => {
  if (!table.has(rootPid)) return []
  const index = childrenIndex(table)
  const seen = new Set<number>([rootPid])
  const tree: Array<number> = [rootPid]
  // `tree` doubles as the breadth-first queue.
  for (let next = 0; next < tree.length; next++) {
    for (const child of index.get(tree[next]) ?? []) {
      if (!seen.has(child)) {
        seen.add(child)
        tree.push(child)
      }
    }
  }
  return tree
}
