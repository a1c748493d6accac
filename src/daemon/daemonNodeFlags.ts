/**
 * The Node flags the daemon runs with, in one place: the CLI starts the background daemon with
 * them, `pmfx startup` writes them into the systemd unit, and the build makes the daemon's code
 * cache under them (V8 rejects a cache made under other flags).
 *
 * Both flags trade a little CPU for a daemon whose resident memory stays near its live data
 * (docs/benchmarks.md, docs/decisions.md):
 * - `--max-semi-space-size=2` (MiB): V8 sizes the young generation for throughput (up to 16 MiB
 *   per semi-space), which an idle daemon keeps resident for nothing (~20 MB).
 * - `--optimize-for-size`: V8 lets the old generation grow far past the live data before a full
 *   collection; after a burst of requests or a log flood the daemon sat at 200–330 MB holding
 *   ~18 MB of live objects. With the flag it stays under ~140 MB at the peak and settles back.
 *   The cost, measured: sampling 100 processes takes ~1.3 % of a core instead of ~0.7 %.
 * - `--v8-pool-size=1`: Node starts one V8 worker thread per core (up to 4) for concurrent GC
 *   marking and background compilation; each keeps a stack and a glibc malloc arena of its own
 *   resident. One worker is enough for a daemon whose heap is ~20 MB: 2–3 MB less at 10 apps,
 *   3.5–4.5 MB less at 60, no measurable CPU cost (docs/benchmarks.md, "The daemon's memory, second pass").
 * - `--no-turbofan --no-sparkplug`: the daemon idles interpreted; the first heavy work per line (a
 *   large log read, a flood of JSON or decoded lines; not a flood of plain text lines) switches
 *   both compilers on for good (optimizingCompilers.ts). ~8 MB
 *   less for an idle daemon (docs/benchmarks.md, "The daemon's memory, third pass").
 * - `--expose-gc`: one full collection after a burst of spawns gives back the heap the burst grew
 *   (settleMemory.ts); V8 alone kept it. ~5 MB less with 60 apps.
 */
export const DAEMON_NODE_FLAGS: ReadonlyArray<string> = [
  "--max-semi-space-size=2",
  "--optimize-for-size",
  "--v8-pool-size=1",
  "--no-turbofan",
  "--no-sparkplug",
  "--expose-gc"
]

/**
 * Node's arguments for a daemon — these flags, the `pmfx` launcher (`dist/pmfx.cjs`, which loads
 * the daemon bundle from its code cache, made under the same flags), `daemon` and its options —
 * in one place for everything that starts one: the CLI, the systemd unit, the build, the tests.
 */
export const daemonArguments = (launcher: string, options: ReadonlyArray<string> = []): ReadonlyArray<string> => [
  ...DAEMON_NODE_FLAGS,
  launcher,
  "daemon",
  ...options
]
