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
    // Two files at a time on two cores. With three, two runs of three ended with vitest's
    // "Timeout calling onTaskUpdate" (a worker's report unanswered for 60 s under the load of
    // three files' daemons and apps), which fails the run even when every test passed.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
