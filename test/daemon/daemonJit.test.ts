/**
 * The daemon's memory switches (docs/benchmarks.md, "The daemon's memory, third pass"): V8's
 * optimizing compilers stay off until heavy byte work (daemon/optimizingCompilers.ts), and one full
 * collection follows a burst of spawns (daemon/settleMemory.ts). Each module is bundled as is and
 * run in a Node started with the daemon's flags, where `%GetOptimizationStatus` shows the tier.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { buildSync } from "esbuild"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DAEMON_NODE_FLAGS } from "../../src/daemon/daemonNodeFlags"

let folder: string
const bundle = (name: string) => path.join(folder, `${name}.cjs`)
beforeAll(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-jit-"))
  for (const name of ["optimizingCompilers", "settleMemory"])
    buildSync({
      entryPoints: [path.resolve("src/daemon", `${name}.ts`)],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: bundle(name),
      logLevel: "error"
    })
  // The log pipe with the compilers' switch it shares in the daemon.
  buildSync({
    stdin: {
      contents:
        'export { LogPipe } from "../logs/LogPipe"; export { textPrefix, lineFormatter } from "../logs/formatLine"; export { optimizingCompilersOn } from "./optimizingCompilers"',
      resolveDir: path.resolve("src/daemon"),
      loader: "ts"
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: bundle("logPipeWithCompilers"),
    logLevel: "error"
  })
  // Both modules in one bundle, sharing the compilers' switch as in the daemon.
  buildSync({
    stdin: {
      contents: 'export * from "./settleMemory"; export { enableOptimizingCompilers } from "./optimizingCompilers"',
      resolveDir: path.resolve("src/daemon"),
      loader: "ts"
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: bundle("settleWithCompilers"),
    logLevel: "error"
  })
})
afterAll(() => {
  fs.rmSync(folder, { recursive: true, force: true })
})

/**
 * Runs `script` in a Node with the daemon's flags (and natives syntax); its stdout, parsed as JSON.
 * Asynchronous: a script may take half a minute, and a worker blocked that long cannot answer vitest.
 */
const runWithDaemonFlags = async (script: string, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, "--allow-natives-syntax", "-e", script], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const killer = setTimeout(() => child.kill("SIGKILL"), 120_000)
  const status = await new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  clearTimeout(killer)
  expect(stderr).toBe("")
  expect(status).toBe(0)
  return JSON.parse(stdout) as Record<string, unknown>
}

/** A hot function, run until TurboFan has optimized it or 10 s have passed; whether it was. */
const hotLoop = `
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s }
const OPTIMIZED = 16 // V8's OptimizationStatus::kOptimized
const optimizedWithin = (ms) => {
  const deadline = Date.now() + ms
  do { for (let k = 0; k < 50; k++) hot(20000); if ((%GetOptimizationStatus(hot) & OPTIMIZED) !== 0) return true } while (Date.now() < deadline)
  return false
}`

describe("the daemon's optimizing compilers", () => {
  it("stay off until bytes add up to a flood within a second, then optimize hot code", async () => {
    const out = await runWithDaemonFlags(`
const jit = require(${JSON.stringify(bundle("optimizingCompilers"))})
${hotLoop}
const before = { on: jit.optimizingCompilersOn(), optimized: optimizedWithin(1000) }
// 60 KiB now and 60 KiB two seconds later: two windows, no flood.
jit.noteHeavyBytes(60 * 1024, 1_000)
jit.noteHeavyBytes(60 * 1024, 3_000)
const apart = jit.optimizingCompilersOn()
// 10 KiB more within the second window: 70 KiB, a flood.
jit.noteHeavyBytes(10 * 1024, 3_500)
process.stdout.write(JSON.stringify({ before, apart, after: { on: jit.optimizingCompilersOn(), optimized: optimizedWithin(10_000) } }))`)
    expect(out).toEqual({
      before: { on: false, optimized: false },
      apart: false,
      after: { on: true, optimized: true }
    })
  })

  it("stay off through floods of text lines, LF or CRLF (native stamping), and go on for JSON records (work per line)", async () => {
    const out = await runWithDaemonFlags(`
const { LogPipe, textPrefix, lineFormatter, optimizingCompilersOn } = require(${JSON.stringify(bundle("logPipeWithCompilers"))})
const { PassThrough } = require("node:stream")
const stored = { bytes: 0 }
const file = { write(batch) { stored.bytes += batch.length }, get needsDrain() { return false }, onDrain(go) { go() } }
// 4 MiB of lines read 64 KiB at a time, as a flooding child's pipe gives them.
const flood = (logType, ending) => {
  let text = ""
  for (let i = 0; text.length < 4 * 1024 * 1024; i++) text += "line " + i + " " + "x".repeat(60) + ending
  const source = new PassThrough()
  const app = { name: "flood", log_type: logType, log_date_format: "YYYY-MM-DDTHH:mm:ss.SSSZ" }
  new LogPipe(source, [file], { prefix: textPrefix(app), line: lineFormatter(app) }, "out", 0, undefined)
  const bytes = Buffer.from(text)
  for (let at = 0; at < bytes.length; at += 65536) source.emit("data", bytes.subarray(at, at + 65536))
}
flood("text", "\\n")
const afterText = { on: optimizingCompilersOn(), stored: stored.bytes > 4 * 1024 * 1024 }
flood("text", "\\r\\n")
const afterCrLf = optimizingCompilersOn()
flood("json", "\\n")
process.stdout.write(JSON.stringify({ afterText, afterCrLf, afterJson: optimizingCompilersOn() }))`)
    expect(out).toEqual({ afterText: { on: false, stored: true }, afterCrLf: false, afterJson: true })
  })

  it("are never switched on while the build records the code cache (V8 stamps it with the flags of the moment)", async () => {
    const out = await runWithDaemonFlags(
      `
const jit = require(${JSON.stringify(bundle("optimizingCompilers"))})
${hotLoop}
jit.noteHeavyBytes(10 * 1024 * 1024, 1_000)
jit.enableOptimizingCompilers()
process.stdout.write(JSON.stringify({ optimized: optimizedWithin(1000) }))`,
      { PMFX_WRITE_CODE_CACHE: "1" }
    )
    expect(out).toEqual({ optimized: false })
  })
})

/** The daemon's scheduler, collecting 200 ms after the last spawn instead of 3 s: what it does is the same. */
const SHORT_SETTLE = { settleMs: 200, minIntervalMs: 30_000 }

describe("the collection after a burst of spawns", () => {
  // The daemon's scheduler waits 3 s after the last spawn and 30 s between two collections
  // (DAEMON_SETTLE_TIMINGS); the same code with shorter timings shows the same sequence.
  it("runs once after spawns close together, and again after a later one, not before minIntervalMs", async () => {
    const timings = { settleMs: 200, minIntervalMs: 2_000 }
    const out = await runWithDaemonFlags(`
const { makeSettleMemory } = require(${JSON.stringify(bundle("settleMemory"))})
const settleMemorySoon = makeSettleMemory(${JSON.stringify(timings)})
const collect = globalThis.gc
let collections = 0
const at = []
globalThis.gc = () => { collections++; at.push(performance.now()); collect() }
const seen = []
const alive = setInterval(() => {}, 1000)
const waitFor = (count) => new Promise((resolve) => {
  const poll = setInterval(() => { if (collections >= count) { clearInterval(poll); resolve() } }, 20)
})
;(async () => {
  settleMemorySoon(); settleMemorySoon(); settleMemorySoon()
  await waitFor(1)
  seen.push(collections)
  settleMemorySoon()
  await waitFor(2)
  seen.push(collections)
  clearInterval(alive)
  process.stdout.write(JSON.stringify({ seen, apart: at[1] - at[0] }))
})()`)
    expect(out.seen).toEqual([1, 2])
    expect(out.apart).toBeGreaterThanOrEqual(timings.minIntervalMs)
  })

  // V8's OptimizationStatus::kIsLazy: the function has no bytecode (compiled again on its next call).
  it("drops the bytecode of functions not running, for that collection only", async () => {
    const out = await runWithDaemonFlags(`
const settleMemorySoon = require(${JSON.stringify(bundle("settleMemory"))}).makeSettleMemory(${JSON.stringify(SHORT_SETTLE)})
const LAZY = 262144
function warm(n) { return n + 1 }
warm(1)
const lazy = () => (%GetOptimizationStatus(warm) & LAZY) !== 0
const out = { before: lazy() }
gc()
out.afterPlainCollection = lazy()
const collect = globalThis.gc
const alive = setTimeout(() => {}, 30000)
globalThis.gc = () => {
  collect()
  setImmediate(() => {
    out.afterSettling = lazy()
    out.result = warm(2)
    out.compiledAgain = !lazy()
    collect()
    out.afterNextPlainCollection = lazy()
    clearTimeout(alive)
    process.stdout.write(JSON.stringify(out))
  })
}
settleMemorySoon()`)
    expect(out).toEqual({
      before: false,
      afterPlainCollection: false,
      afterSettling: true,
      result: 3,
      compiledAgain: true,
      afterNextPlainCollection: false
    })
  })

  /** A called function, the settling collection, then whether the function lost its bytecode (kIsLazy). */
  const warmThenSettle = `
function warm(n) { return n + 1 }
warm(1)
const alive = setTimeout(() => {}, 30000)
const collect = globalThis.gc
globalThis.gc = () => {
  collect()
  clearTimeout(alive)
  process.stdout.write(JSON.stringify({ lazy: (%GetOptimizationStatus(warm) & 262144) !== 0 }))
}
settleMemorySoon()`

  it("keeps what the build's code cache run compiled (PMFX_WRITE_CODE_CACHE)", async () => {
    const out = await runWithDaemonFlags(
      `
const settleMemorySoon = require(${JSON.stringify(bundle("settleMemory"))}).makeSettleMemory(${JSON.stringify(SHORT_SETTLE)})
${warmThenSettle}`,
      { PMFX_WRITE_CODE_CACHE: "1" }
    )
    expect(out).toEqual({ lazy: false })
  })

  it("keeps the code of a daemon whose optimizing compilers are on (its log path stays optimized)", async () => {
    const out = await runWithDaemonFlags(`
const { makeSettleMemory, enableOptimizingCompilers } = require(${JSON.stringify(bundle("settleWithCompilers"))})
const settleMemorySoon = makeSettleMemory(${JSON.stringify(SHORT_SETTLE)})
enableOptimizingCompilers()
${warmThenSettle}`)
    expect(out).toEqual({ lazy: false })
  })

  it("does nothing in a process without gc (the library, a runtime started without the flag)", () => {
    const result = spawnSync(
      process.execPath,
      [
        "-e",
        `require(${JSON.stringify(bundle("settleMemory"))}).settleMemorySoon(); process.stdout.write(String(typeof gc))`
      ],
      { encoding: "utf8", timeout: 30_000 }
    )
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe("undefined")
    expect(result.status).toBe(0)
  })
})
