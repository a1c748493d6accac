/**
 * Measures what docs/architecture.md §12 budgets: metrics for 100 processes each second, under 2% of one core.
 * Not a test (timings are never asserted): run it by hand with
 *
 *   npx vite-node test/monitor/measureSamplingCost.ts
 *
 * It starts 100 idle processes (10 `sh -c` wrappers with 9 `sleep` children each, so trees have
 * depth, plus their leaders = 100 pids), then reports the CPU time of one sample (tight loop) and
 * the CPU this process uses while sampling once a second.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { makeMetricsSampler } from "../../src/monitor/MetricsSampler"
import { readProcessTable } from "../../src/monitor/procfs"

const WRAPPERS = 10
const CHILDREN_PER_WRAPPER = 9
const TIGHT_SAMPLES = 500
const PACED_SECONDS = 20

const cpuMillis = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const children = Array.from({ length: WRAPPERS }, () =>
  spawn("sh", ["-c", `${"sleep 600 & ".repeat(CHILDREN_PER_WRAPPER)} wait`], { detached: true, stdio: "ignore" })
)
const roots = children.map((child, key) => ({ key, pid: child.pid ?? 0 }))

const program = Effect.gen(function* () {
  const sampler = yield* makeMetricsSampler()
  yield* Effect.sleep("1 second")
  const table = yield* readProcessTable()
  const first = yield* sampler.sample(roots)
  const sampled = [...first.values()].reduce((sum, tree) => sum + tree.pids.length, 0)
  console.log(`processes on the host: ${table.size}; pids in the sampled trees: ${sampled}`)

  // Warm up the JIT, then the cost of one sample.
  for (let i = 0; i < 50; i++) yield* sampler.sample(roots)
  const tightStart = cpuMillis()
  for (let i = 0; i < TIGHT_SAMPLES; i++) yield* sampler.sample(roots)
  const perSample = (cpuMillis() - tightStart) / TIGHT_SAMPLES
  console.log(`one sample: ${perSample.toFixed(3)} ms of CPU -> ${(perSample / 10).toFixed(2)}% of a core at 1 Hz`)

  // The real pace: one sample a second; includes Node's own idle overhead.
  const pacedStart = cpuMillis()
  const wallStart = performance.now()
  for (let i = 0; i < PACED_SECONDS; i++) {
    yield* Effect.sleep("1 second")
    yield* sampler.sample(roots)
  }
  const pacedShare = ((cpuMillis() - pacedStart) / (performance.now() - wallStart)) * 100
  console.log(`sampling once a second for ${PACED_SECONDS} s: ${pacedShare.toFixed(2)}% of a core (whole process)`)
})

Effect.runPromise(Effect.scoped(program)).finally(() => {
  for (const child of children) {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  }
})
