import { defineConfig } from "vitest/config"

/**
 * The fault suite (`npm run test:faults`, docs/reliability.md): the long and hostile runs — daemon
 * SIGKILL loops, a full disk, mutation storms, catastrophic regexes under load, half-open
 * connections, rotation under a flood. The fast fault checks live beside the other tests and run in
 * `npm test`; the ones here take minutes or need root.
 */
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    globalSetup: ["test/support/buildBundle.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One file at a time: each measures the daemon under a load it makes itself.
    poolOptions: { forks: { maxForks: 1, minForks: 1 } }
  }
})
