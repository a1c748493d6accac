import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long fault runs have their own command (`npm run test:faults`, vitest.faults.config.ts).
    exclude: ["test/faults/**", "**/node_modules/**"],
    globalSetup: ["test/support/buildBundle.ts"],
    // Tests spawn real processes; generous limits keep a loaded 2-core machine from flaking.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Three files at a time on two cores: the tests mostly wait on processes they start (a run
    // with two used ~1.3 cores), so a third fork shortens the suite without starving the others.
    poolOptions: { forks: { maxForks: 3, minForks: 1 } }
  }
})
