/**
 * Lets the test worker's event loop turn once, so that vitest's RPC is answered: `await` it between
 * the synchronous CLI runs of a long test (test/support/eventLoopStalls.ts names the tests that need it).
 */
export const letLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
