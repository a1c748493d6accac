/**
 * The write side of the logs with real children on real pipes: no line lost, split or reordered,
 * under load, across rotations and compression; framing of partial, long and multi-byte lines;
 * text and JSON formats; shared files.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AppDefinition } from "../../src/domain/AppDefinition"
import { instanceFiles } from "../../src/domain/logPaths"
import type { LogEntry } from "../../src/logs/LogEntry"
import { LogStore } from "../../src/logs/LogStore"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"
import {
  type Child,
  allRotatedLines,
  eventually,
  exited,
  expectNumbered,
  fileLines,
  FLOOD_SCRIPT,
  freshHome,
  isoMessage,
  spawnNode,
  storeLayer,
  testApp
} from "./helpers"

const MiB = 1024 * 1024

/** Opens the instance's logs, runs `script` with its stdout and stderr attached, closes the logs after it exits. */
const runChild = (
  app: AppDefinition,
  instance: number,
  script: string,
  args: ReadonlyArray<string> = [],
  onLine?: (entry: LogEntry) => void
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* LogStore
      const logs = yield* store.openInstance(app, instance, onLine)
      const child = spawnNode(script, ...args)
      logs.attach(child.process.stdout, "out")
      logs.attach(child.process.stderr, "err")
      yield* exited(child)
      return logs.files
    })
  )

describe("LogStore writing", () => {
  it.live("stores 200,000 lines written flat out, all of them, in order, none split", () => {
    const home = freshHome()
    const app = testApp({ name: "flood" })
    return Effect.gen(function* () {
      const started = performance.now()
      const files = yield* runChild(app, 0, FLOOD_SCRIPT, ["200000"])
      const elapsed = performance.now() - started
      console.info(`200,000 lines through the log path in ${elapsed.toFixed(0)} ms`)
      expectNumbered(fileLines(files.out_file).map(isoMessage), 200_000)
      expect(fileLines(files.error_file)).toEqual([])
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("loses and splits no line across many size rotations", () => {
    const home = freshHome()
    const app = testApp({ name: "rot", max_log_size: MiB, max_log_files: 1000 })
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, FLOOD_SCRIPT, ["200000"])
      const rotated = yield* Effect.promise(() => listRotatedFiles(files.out_file))
      expect(rotated.length).toBeGreaterThanOrEqual(5)
      for (const file of rotated) {
        expect(file.compressed).toBe(false)
        expect(fs.statSync(file.path).size).toBeLessThanOrEqual(MiB)
      }
      expectNumbered((yield* allRotatedLines(files.out_file)).map(isoMessage), 200_000)
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("loses no line across rotations with compression, and the reader reads them all back", () => {
    const home = freshHome()
    const app = testApp({ name: "gz", max_log_size: MiB, max_log_files: 1000, compress_logs: true })
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, FLOOD_SCRIPT, ["200000"])
      const rotated = yield* Effect.promise(() => listRotatedFiles(files.out_file))
      expect(rotated.length).toBeGreaterThanOrEqual(5)
      expect(rotated.every((file) => file.compressed)).toBe(true)
      // No half-written archive or uncompressed leftover stays behind.
      expect(fs.readdirSync(path.dirname(files.out_file)).filter((name) => name.endsWith(".tmp"))).toEqual([])
      expectNumbered((yield* allRotatedLines(files.out_file)).map(isoMessage), 200_000)

      const store = yield* LogStore
      const everything = yield* store.read(app, { lines: 300_000 })
      expectNumbered(
        everything.map((entry) => entry.message),
        200_000
      )
      const last = yield* store.read(app, { lines: 5 })
      expectNumbered(
        last.map((entry) => entry.message),
        5,
        199_995
      )
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("keeps only the newest max_log_files rotated files", () => {
    const home = freshHome()
    const app = testApp({ name: "keep", max_log_size: 64 * 1024, max_log_files: 3 })
    return Effect.gen(function* () {
      // Enough output that even write batches as large as the writer's buffer (256 KiB, under
      // load) make many more files than are kept.
      const files = yield* runChild(app, 0, FLOOD_SCRIPT, ["100000"])
      const rotated = yield* Effect.promise(() => listRotatedFiles(files.out_file))
      expect(rotated).toHaveLength(3)
      // What is left is the newest part of the output, contiguous up to the last line.
      const messages = (yield* allRotatedLines(files.out_file)).map(isoMessage)
      const first = Number(messages[0]!.slice("line ".length))
      expect(first).toBeGreaterThan(0)
      expectNumbered(messages, 100_000 - first, first)
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("flushes a last line without a newline when the child exits", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none" })
    return Effect.gen(function* () {
      const files = yield* runChild(
        app,
        0,
        `process.stdout.write("first\\nno newline at the end"); process.stderr.write("err tail")`
      )
      expect(fileLines(files.out_file)).toEqual(["first", "no newline at the end"])
      expect(fileLines(files.error_file)).toEqual(["err tail"])
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("cuts a 200 KiB line into 64 KiB pieces with max_line_length 64K and leaves shorter lines whole", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none", max_line_length: 64 * 1024 })
    return Effect.gen(function* () {
      const files = yield* runChild(
        app,
        0,
        `process.stdout.write("a".repeat(200 * 1024) + "\\n" + "b".repeat(64 * 1024) + "\\n" + "c".repeat(60000) + "\\r\\n")`
      )
      const lines = fileLines(files.out_file)
      expect(lines.map((line) => line.length)).toEqual([65536, 65536, 65536, 8192, 65536, 60000])
      expect(lines.slice(0, 4).join("")).toBe("a".repeat(200 * 1024))
      expect(lines[4]).toBe("b".repeat(64 * 1024))
      expect(lines[5]).toBe("c".repeat(60000))
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("keeps a 1,000,000-byte line whole by default (max_line_length 1M)", () => {
    const home = freshHome()
    const app = testApp()
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, `process.stdout.write("L".repeat(1000000) + "\\nafter\\n")`)
      const lines = fileLines(files.out_file)
      expect(lines.map(isoMessage)).toEqual(["L".repeat(1_000_000), "after"])
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("stores a line over max_line_length as records marked as continuing, all with the first piece's time", () => {
    const home = freshHome()
    const app = testApp({ name: "long", max_line_length: 1024 })
    const long = "0123456789".repeat(250)
    // The line arrives in two writes 300 ms apart, so its pieces are cut from different chunks.
    const script = `const line = ${JSON.stringify(long)}; process.stdout.write("before\\n" + line.slice(0, 1500)); setTimeout(() => process.stdout.write(line.slice(1500) + "\\nafter\\n"), 300)`
    const live: Array<LogEntry> = []
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, script, [], (entry) => live.push(entry))
      const lines = fileLines(files.out_file)
      const stored = /^(\S+?)(\+?) (.*)$/
      const parsed = lines.map((line) => stored.exec(line)!)
      expect(parsed.map((m) => [m[2], m[3]!.length])).toEqual([
        ["", 6],
        ["", 1024],
        ["+", 1024],
        ["+", 452],
        ["", 5]
      ])
      expect(
        parsed
          .slice(1, 4)
          .map((m) => m[3])
          .join("")
      ).toBe(long)
      // One timestamp for the three pieces, although the last came 300 ms after the first.
      expect(new Set(parsed.slice(1, 4).map((m) => m[1])).size).toBe(1)
      expect(Date.parse(parsed[4]![1]!) - Date.parse(parsed[1]![1]!)).toBeGreaterThanOrEqual(250)

      const entries = yield* Effect.flatMap(LogStore, (store) => store.read(app, {}))
      expect(entries.map((e) => [e.message.length, e.continued])).toEqual([
        [6, undefined],
        [1024, undefined],
        [1024, true],
        [452, true],
        [5, undefined]
      ])
      expect(entries[2]!.timestamp).toBe(entries[1]!.timestamp)
      expect(live.map((e) => [e.message.length, e.continued, e.timestamp])).toEqual(
        entries.map((e) => [e.message.length, e.continued, e.timestamp])
      )
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("marks continuation records in JSON logs with a last key continued: true", () => {
    const home = freshHome()
    const app = testApp({ name: "longjson", log_type: "json", max_line_length: 1024 })
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, `console.error("é".repeat(1500))`)
      const records = fileLines(files.error_file).map((line) => JSON.parse(line))
      // Two-byte characters: 512 a piece (1024 bytes), 476 left.
      expect(records.map((r) => [r.message.length, r.continued])).toEqual([
        [512, undefined],
        [512, true],
        [476, true]
      ])
      expect(Object.keys(records[1])).toEqual(["timestamp", "app", "instance", "stream", "message", "continued"])
      expect(new Set(records.map((r) => r.timestamp)).size).toBe(1)
      const entries = yield* Effect.flatMap(LogStore, (store) => store.read(app, {}))
      expect(entries.map((e) => e.continued)).toEqual([undefined, true, true])
      expect(entries.map((e) => e.message).join("")).toBe("é".repeat(1500))
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("keeps multi-byte UTF-8 characters whole across chunk boundaries", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none", max_line_length: 64 * 1024 })
    // Seven-byte writes, one per event-loop turn, cut most characters across chunks.
    const text = "héllo wörld € 😀 日本語テキスト ✓\n".repeat(50) + "∑".repeat(30000) + "\n"
    const script = `
      const bytes = Buffer.from(${JSON.stringify(text)});
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return;
        process.stdout.write(bytes.subarray(at, at + 7));
        at += 7;
        setImmediate(next);
      };
      next();`
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, script)
      const lines = fileLines(files.out_file)
      expect(lines.slice(0, 50)).toEqual(Array(50).fill("héllo wörld € 😀 日本語テキスト ✓"))
      // 90,000 bytes of three-byte characters: cut at a character boundary below 64 KiB.
      expect(lines.slice(50).map((line) => Buffer.byteLength(line))).toEqual([65535, 90000 - 65535])
      expect(lines.slice(50).join("")).toBe("∑".repeat(30000))
      expect(lines.join("")).not.toContain("\uFFFD")
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("stores JSON lines that carry app, instance, stream and an ISO timestamp", () => {
    const home = freshHome()
    const app = testApp({ name: "jsonapp", instances: 2, log_type: "json" })
    return Effect.gen(function* () {
      const before = Date.now()
      const files = yield* runChild(app, 1, `console.log('hello "quoted" \\\\ world'); console.error("oops")`)
      const out = fileLines(files.out_file).map((line) => JSON.parse(line))
      const err = fileLines(files.error_file).map((line) => JSON.parse(line))
      expect(out).toEqual([
        {
          timestamp: expect.any(String),
          app: "jsonapp",
          instance: 1,
          stream: "out",
          message: 'hello "quoted" \\ world'
        }
      ])
      expect(err).toEqual([
        { timestamp: expect.any(String), app: "jsonapp", instance: 1, stream: "err", message: "oops" }
      ])
      expect(Object.keys(out[0])).toEqual(["timestamp", "app", "instance", "stream", "message"])
      const ms = Date.parse(out[0].timestamp)
      expect(new Date(ms).toISOString()).toBe(out[0].timestamp)
      expect(ms).toBeGreaterThanOrEqual(before)
      expect(ms).toBeLessThanOrEqual(Date.now())
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("writes bare messages with log_date_format none", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none" })
    return Effect.gen(function* () {
      const files = yield* runChild(app, 0, `console.log("plain"); console.log("")`)
      expect(fileLines(files.out_file)).toEqual(["plain", ""])
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("writes a custom date pattern in local time and reads it back", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "[at] YYYY/MM/DD HH:mm:ss.SSS Z" })
    return Effect.gen(function* () {
      const before = Date.now()
      const files = yield* runChild(app, 0, `console.log("custom")`)
      const after = Date.now()
      const [line] = fileLines(files.out_file)
      expect(line).toMatch(/^at \d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3} [+-]\d{2}:\d{2} custom$/)
      const [entry] = yield* (yield* LogStore).read(app, {})
      expect(entry!.message).toBe("custom")
      const ms = Date.parse(entry!.timestamp!)
      expect(ms).toBeGreaterThanOrEqual(before)
      expect(ms).toBeLessThanOrEqual(after)
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("with merge_logs, two instances write one set of files and both are there", () => {
    const home = freshHome()
    const app = testApp({ name: "merged", instances: 2, merge_logs: true })
    const script = `const tag = process.argv[1]; let s = ""; for (let i = 0; i < 20000; i++) s += tag + " " + i + "\\n"; process.stdout.write(s)`
    return Effect.gen(function* () {
      const store = yield* LogStore
      const files = yield* Effect.scoped(
        Effect.gen(function* () {
          const zero = yield* store.openInstance(app, 0)
          const one = yield* store.openInstance(app, 1)
          expect(zero.files.out_file).toBe(one.files.out_file)
          const a = spawnNode(script, "a")
          const b = spawnNode(script, "b")
          zero.attach(a.process.stdout, "out")
          zero.attach(a.process.stderr, "err")
          one.attach(b.process.stdout, "out")
          one.attach(b.process.stderr, "err")
          yield* exited(a)
          yield* exited(b)
          return zero.files
        })
      )
      expect(files.out_file).toBe(path.join(home, "logs", "merged-out.log"))
      const messages = fileLines(files.out_file).map(isoMessage)
      expect(messages).toHaveLength(40000)
      for (const tag of ["a", "b"]) {
        expect(messages.filter((m) => m.startsWith(`${tag} `))).toEqual(
          Array.from({ length: 20000 }, (_, i) => `${tag} ${i}`)
        )
      }
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("sends both streams to log_file as well, and calls onLine with each entry", () => {
    const home = freshHome()
    const combined = path.join(home, "custom", "combined.log")
    const app = testApp({ name: "both", log_file: combined, log_date_format: "none" })
    const entries: Array<LogEntry> = []
    // stdout and stderr are two pipes, so which one the store reads first depends on timing. The
    // child writes each line only after the store has delivered the one before (a byte on its
    // stdin), which makes the order across the streams the one written.
    const script = `const lines = [["log", "out one"], ["error", "[warn] err one"], ["log", '{"level":50,"msg":"x"}']]
let next = 0
const write = () => { const [method, text] = lines[next++]; console[method](text); if (next === lines.length) process.exit(0) }
process.stdin.on("data", write)
write()`
    return Effect.gen(function* () {
      const before = Date.now()
      const files = yield* Effect.scoped(
        Effect.gen(function* () {
          let child: Child | undefined
          const logs = yield* (yield* LogStore).openInstance(app, 0, (entry) => {
            entries.push(entry)
            if (entries.length < 3) child?.process.stdin.write("\n")
          })
          child = spawnNode(script)
          child.process.stdin.on("error", () => {})
          logs.attach(child.process.stdout, "out")
          logs.attach(child.process.stderr, "err")
          yield* exited(child)
          return logs.files
        })
      )
      expect(files.log_file).toBe(combined)
      expect(fileLines(files.out_file)).toEqual(["out one", '{"level":50,"msg":"x"}'])
      expect(fileLines(files.error_file)).toEqual(["[warn] err one"])
      expect(fileLines(combined)).toEqual(["out one", "[warn] err one", '{"level":50,"msg":"x"}'])
      expect(entries.map(({ timestamp: _, ...rest }) => rest)).toEqual([
        { app: "both", instance: 0, stream: "out", level: "info", message: "out one" },
        { app: "both", instance: 0, stream: "err", level: "warn", message: "[warn] err one" },
        { app: "both", instance: 0, stream: "out", level: "error", message: '{"level":50,"msg":"x"}' }
      ])
      for (const entry of entries) expect(Date.parse(entry.timestamp!)).toBeGreaterThanOrEqual(before)
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("closing the logs waits for the child's streams to end", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none" })
    return Effect.gen(function* () {
      const store = yield* LogStore
      let child: ReturnType<typeof spawnNode> | undefined
      const files = yield* Effect.scoped(
        Effect.gen(function* () {
          const logs = yield* store.openInstance(app, 0)
          child = spawnNode(`setTimeout(() => { console.log("late line"); }, 300)`)
          logs.attach(child.process.stdout, "out")
          logs.attach(child.process.stderr, "err")
          return logs.files
        })
      )
      // The scope closed before the child wrote; its line is in the file all the same.
      expect(fileLines(files.out_file)).toEqual(["late line"])
      yield* exited(child!)
    }).pipe(Effect.provide(storeLayer(home)))
  })

  // `it.effect` runs under a TestClock: the grace period must not depend on Effect's clock.
  it.effect("closing the logs stops waiting for a child that keeps its pipes open", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none" })
    return Effect.gen(function* () {
      const store = yield* LogStore
      let child: ReturnType<typeof spawnNode> | undefined
      let seen = 0
      const files = yield* Effect.scoped(
        Effect.gen(function* () {
          const logs = yield* store.openInstance(app, 0, () => seen++)
          child = spawnNode(`process.stdout.write("said\\nhalf"); setInterval(() => {}, 1000)`)
          logs.attach(child.process.stdout, "out")
          logs.attach(child.process.stderr, "err")
          yield* eventually(() => seen === 1)
          return logs.files
        })
      )
      expect(fileLines(files.out_file)).toEqual(["said", "half"])
      expect(child!.process.exitCode).toBeNull()
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("keeps each instance in its own default files", () => {
    const home = freshHome()
    const app = testApp({ name: "multi", instances: 2, log_date_format: "none" })
    return Effect.gen(function* () {
      const zero = yield* runChild(app, 0, `console.log("zero")`)
      const one = yield* runChild(app, 1, `console.log("one")`)
      expect(zero).toEqual(instanceFiles(app, 0, home))
      expect(fileLines(zero.out_file)).toEqual(["zero"])
      expect(fileLines(one.out_file)).toEqual(["one"])
    }).pipe(Effect.provide(storeLayer(home)))
  })

  it.live("appends to an existing file across restarts", () => {
    const home = freshHome()
    const app = testApp({ log_date_format: "none" })
    return Effect.gen(function* () {
      const store = yield* LogStore
      const files = yield* Effect.scoped(
        Effect.gen(function* () {
          const logs = yield* store.openInstance(app, 0)
          for (const word of ["first", "second"]) {
            const child = spawnNode(`console.log(${JSON.stringify(word)})`)
            logs.attach(child.process.stdout, "out")
            logs.attach(child.process.stderr, "err")
            yield* exited(child)
          }
          // The file is still open; its lines reach the disk without closing it.
          yield* eventually(() => fs.existsSync(logs.files.out_file) && fileLines(logs.files.out_file).length === 2)
          return logs.files
        })
      )
      yield* runChild(app, 0, `console.log("third")`)
      expect(fileLines(files.out_file)).toEqual(["first", "second", "third"])
    }).pipe(Effect.provide(storeLayer(home)))
  })
})
