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
    // Each fork runs its files one after the other in one module registry: without
    // this, every file paid ~1.3 s of CPU re-importing vitest, effect and the sources (a third of
    // the suite's CPU). Files share no state through it: every test makes its own PMFX_HOME,
    // daemon and layers, and the support modules hold none (docs/decisions.md).
    isolate: false,
    // Four files at a time on two cores: the suite waits on the processes it starts part of the
    // time, and with three forks the cores were busy ~83 % of it (docs/decisions.md, "The suite,
    // eighth pass": in paired runs a fourth fork saved 6 s of the suite's ~190 s twice, and 23 s of
    // one `npm test`; the type checks beside it still fit). minForks equals maxForks: vitest 3.2.7
    // recycles an idle fork while a file is handed to it ("Terminating worker thread") when the
    // pool may shrink. The forks answer vitest's RPC between tests; a test that blocks its loop
    // long is named by test/support/eventLoopStalls.ts.
    poolOptions: { forks: { maxForks: 4, minForks: 4 } }
  }
})
