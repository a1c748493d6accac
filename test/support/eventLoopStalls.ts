/**
 * A setup file (vitest.config.ts) that names the tests which keep their worker's event loop blocked
 * for long stretches. A fork answers vitest's RPC only when its loop turns, and vitest fails the whole
 * run ("Timeout calling onTaskUpdate") once a reply has waited 60 s — even when every test passed.
 * The usual cause is a long chain of synchronous CLI runs (`sandbox.pmfx`, `spawnSync`) with no
 * `await` between them: each is fine, their sum on a loaded machine is not. A test named here should
 * let the loop turn between its steps (`await` something, e.g. a poll, between the CLI runs).
 */
import { afterEach, beforeEach, expect } from "vitest"
import { letLoopTurn } from "./letLoopTurn"

/** Warn well before vitest's 60 s limit. */
const WARN_AFTER_MS = 20_000
const TICK_MS = 500

let lastTick = Date.now()
let longest = 0
// Setup files run again for every test file, also with `isolate: false` (one fork runs many files):
// the ticker of the file before is stopped so that only one runs per fork.
const TICKER = Symbol.for("pmfx.test.eventLoopStalls.ticker")
const holder = globalThis as { [TICKER]?: NodeJS.Timeout }
if (holder[TICKER] !== undefined) clearInterval(holder[TICKER])
const ticker = setInterval(() => {
  const now = Date.now()
  const gap = now - lastTick - TICK_MS
  longest = Math.max(longest, gap)
  lastTick = now
  // Outside a test (a beforeAll/afterAll hook, the file's import), afterEach never sees it: said here.
  if (gap >= WARN_AFTER_MS) {
    const state = expect.getState()
    if (state.currentTestName === undefined)
      process.stderr.write(
        `event loop blocked ${(gap / 1000).toFixed(1)} s outside a test (a hook, or the import) of ${state.testPath ?? "a test file"}: vitest fails the run past 60 s; await between its synchronous steps (test/support/eventLoopStalls.ts)\n`
      )
  }
}, TICK_MS)
ticker.unref()
holder[TICKER] = ticker

// Before each test the loop turns through a whole iteration (its timers, then its poll for I/O,
// vitest's replies included), so the synchronous stretches of two tests in a row, or of a hook and a
// test, never add up: vitest goes from one to the next through promises only, without a turn. A
// worker's RPC timer is stamped with the loop's clock as of its last turn, so a call made at the end
// of a long stretch had that much less of its 60 s (docs/benchmarks.md, "Idle wakeups").
beforeEach(async () => {
  await letLoopTurn()
  await letLoopTurn()
  lastTick = Date.now()
  longest = 0
})

afterEach(() => {
  // The stretch since the last tick counts too: the test may have ended inside its blocking part.
  const stall = Math.max(longest, Date.now() - lastTick - TICK_MS)
  if (stall >= WARN_AFTER_MS) {
    const name = expect.getState().currentTestName ?? "a test"
    process.stderr.write(
      `event loop blocked ${(stall / 1000).toFixed(1)} s in "${name}": vitest fails the run past 60 s; await between its synchronous steps (test/support/eventLoopStalls.ts)\n`
    )
  }
})
