import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long fault runs have their own command (`npm run test:faults`, vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    globalSetup: ["test/support/buildBundle.ts"],
    // Names the tests that block a worker's event loop long enough to risk vitest's RPC timeout.
    setupFiles: ["test/support/eventLoopStalls.ts"],
    // Tests spawn real processes; generous limits keep a loaded 2-core machine from flaking.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Each of the two forks runs its files one after the other in one module registry: without
    // this, every file paid ~1.3 s of CPU re-importing vitest, effect and the sources (a third of
    // the suite's CPU). Files share no state through it: every test makes its own PMFX_HOME,
    // daemon and layers, and the support modules hold none (docs/decisions.md).
    isolate: false,
    // Two files at a time on two cores. With three, two runs of three ended with vitest's
    // "Timeout calling onTaskUpdate" (a worker's report unanswered for 60 s under the load of
    // three files' daemons and apps), which fails the run even when every test passed.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
