/**
 * Lines and bytes each app instance has written to stdout and stderr since the daemon started,
 * for `GET /metrics` (docs/metrics.md). The log path only adds to a plain mutable counter object
 * (one integer add per chunk and one per line, in `LogPipe`); everything else happens at scrape
 * time. Counters live per app, instance and stream and survive the app's restarts, so Prometheus
 * sees them only grow; those of apps that are gone are dropped when a scrape no longer lists them.
 */
import type { LogStream } from "./LogEntry"

/** What `LogPipe` adds to: bytes as read from the app, lines as complete lines (not their pieces). */
export interface LogCounter {
  lines: number
  bytes: number
}

export interface LogCountRow {
  readonly namespace: string
  readonly name: string
  readonly instance: number
  readonly stream: LogStream
  readonly lines: number
  readonly bytes: number
}

const keyOf = (namespace: string, name: string, instance: number, stream: LogStream) =>
  `${namespace}\u0000${name}\u0000${instance}\u0000${stream}`

export class LogCounts {
  private readonly counters = new Map<
    string,
    { readonly row: Omit<LogCountRow, "lines" | "bytes">; readonly counter: LogCounter }
  >()

  /** The counter of one instance's stream, made on first use and then the same object each time. */
  counterFor(namespace: string, name: string, instance: number, stream: LogStream): LogCounter {
    const key = keyOf(namespace, name, instance, stream)
    const found = this.counters.get(key)
    if (found !== undefined) return found.counter
    const counter: LogCounter = { lines: 0, bytes: 0 }
    this.counters.set(key, { row: { namespace, name, instance, stream }, counter })
    return counter
  }

  /**
   * Every counter of the instances `keep` accepts; the others (apps deleted or scaled down) are
   * forgotten, so the table does not grow with every app ever run.
   */
  snapshot(keep: (namespace: string, name: string, instance: number) => boolean): ReadonlyArray<LogCountRow> {
    const rows: Array<LogCountRow> = []
    for (const [key, { row, counter }] of this.counters) {
      if (!keep(row.namespace, row.name, row.instance)) {
        this.counters.delete(key)
        continue
      }
      rows.push({ ...row, lines: counter.lines, bytes: counter.bytes })
    }
    return rows
  }
}
