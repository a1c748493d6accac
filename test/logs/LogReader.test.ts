/**
 * The read side: each filter picks exactly the right lines, entries from several files come back
 * in time order, rotated and gzipped files are read, bad queries are BAD_REQUEST. Most files here
 * are written with the writer's own line format at chosen times, so every expectation is exact;
 * one test reads what real children wrote.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import type { AppDefinition } from "../../src/domain/AppDefinition"
import { instanceFiles } from "../../src/domain/logPaths"
import type { LogEntry, LogStream } from "../../src/logs/LogEntry"
import { lineFormatter } from "../../src/logs/formatLine"
import type { LogQuery } from "../../src/logs/LogQuery"
import { LogStore } from "../../src/logs/LogStore"
import { type Child, eventually, exited, freshHome, spawnNode, storeLayer, testApp } from "./helpers"

interface Line {
  readonly ms: number
  readonly message: string
  readonly stream: LogStream
  readonly instance: number
}

/** Writes each line to its instance's out or err file in the writer's format (files in time order). */
const writeLines = (app: AppDefinition, home: string, lines: ReadonlyArray<Line>): void => {
  const format = lineFormatter(app)
  for (const line of [...lines].sort((a, b) => a.ms - b.ms)) {
    const files = instanceFiles(app, line.instance, home)
    const file = line.stream === "out" ? files.out_file : files.error_file
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.appendFileSync(file, format(line.message, line.ms, line.stream, line.instance))
  }
}

const read = (home: string, app: AppDefinition, query: LogQuery) =>
  Effect.flatMap(LogStore, (store) => store.read(app, query)).pipe(Effect.provide(storeLayer(home)))

const messages = (entries: ReadonlyArray<LogEntry>) => entries.map((entry) => entry.message)

/** Forty lines a second apart, ending a minute ago, spread over two instances and both streams. */
const spread = (now: number): Array<Line> =>
  Array.from({ length: 40 }, (_, k) => ({
    ms: now - 60_000 - (39 - k) * 1000,
    message: `e${k}`,
    instance: k % 2,
    stream: (k >> 1) % 2 === 0 ? "out" : "err"
  }))

describe("LogStore reading", () => {
  it.live("returns the last N lines in time order across out and err and two instances", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "two", instances: 2 })
      const lines = spread(Date.now())
      writeLines(app, home, lines)
      const entries = yield* read(home, app, { lines: 10 })
      expect(entries).toEqual(
        lines.slice(30).map((line) => ({
          timestamp: new Date(line.ms).toISOString(),
          app: "two",
          instance: line.instance,
          stream: line.stream,
          level: line.stream === "out" ? "info" : "error",
          message: line.message
        }))
      )
      expect(messages(yield* read(home, app, {}))).toEqual(lines.map((line) => line.message))
      expect(yield* read(home, app, { lines: 0 })).toEqual([])
    })
  )

  it.live("filters by stream and by instance", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "two", instances: 2 })
      const lines = spread(Date.now())
      writeLines(app, home, lines)
      const pick = (keep: (line: Line) => boolean, n: number) =>
        lines
          .filter(keep)
          .slice(-n)
          .map((line) => line.message)
      expect(messages(yield* read(home, app, { stream: "err", lines: 6 }))).toEqual(pick((l) => l.stream === "err", 6))
      expect(messages(yield* read(home, app, { stream: "out" }))).toEqual(pick((l) => l.stream === "out", 100))
      expect(messages(yield* read(home, app, { instance: 1, lines: 7 }))).toEqual(pick((l) => l.instance === 1, 7))
      expect(messages(yield* read(home, app, { instance: 0, stream: "err" }))).toEqual(
        pick((l) => l.instance === 0 && l.stream === "err", 100)
      )
    })
  )

  it.live("filters by grep on the message", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "two", instances: 2 })
      writeLines(app, home, spread(Date.now()))
      expect(messages(yield* read(home, app, { grep: "^e(1\\d|3)$" }))).toEqual([
        "e3",
        ...Array.from({ length: 10 }, (_, i) => `e${10 + i}`)
      ])
      // The timestamp prefix is not part of the message.
      expect(yield* read(home, app, { grep: "Z e" })).toEqual([])
      // `/pattern/flags` passes flags; a global flag does not make matching skip lines.
      expect(messages(yield* read(home, app, { grep: "/^E3[0-2]$/gi" }))).toEqual(["e30", "e31", "e32"])
    })
  )

  it.live("filters by level: that level and more severe, from JSON fields, words and the stream", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "lv" })
      const base = Date.now() - 10_000
      const texts: ReadonlyArray<[string, LogStream]> = [
        ['{"level":"error","msg":"json error"}', "out"],
        ['{"level":30,"msg":"json info"}', "err"],
        ["WARN leading warn", "out"],
        ["2024-01-01 12:00:00 [debug] bracketed debug", "err"],
        ["[FATAL] bracketed fatal", "out"],
        ["plain out", "out"],
        ["plain err", "err"],
        ["TRACE leading trace", "out"]
      ]
      writeLines(
        app,
        home,
        texts.map(([message, stream], i) => ({ ms: base + i, message, stream, instance: 0 }))
      )
      const all = yield* read(home, app, {})
      expect(all.map((entry) => entry.level)).toEqual([
        "error",
        "info",
        "warn",
        "debug",
        "fatal",
        "info",
        "error",
        "trace"
      ])
      expect(messages(yield* read(home, app, { level: "warn" }))).toEqual([
        '{"level":"error","msg":"json error"}',
        "WARN leading warn",
        "[FATAL] bracketed fatal",
        "plain err"
      ])
      expect(messages(yield* read(home, app, { level: "error" }))).toEqual([
        '{"level":"error","msg":"json error"}',
        "[FATAL] bracketed fatal",
        "plain err"
      ])
      expect(messages(yield* read(home, app, { level: "fatal" }))).toEqual(["[FATAL] bracketed fatal"])
      expect(yield* read(home, app, { level: "trace" })).toHaveLength(8)
    })
  )

  it.live("filters by since and until, ISO and relative", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "time" })
      const now = Date.now()
      // m50 … m0: one line every ten minutes, the last one just now.
      const lines: Array<Line> = [50, 40, 30, 20, 10, 0].map((ago) => ({
        ms: now - ago * 60_000 - 1000,
        message: `m${ago}`,
        stream: ago % 20 === 0 ? "out" : "err",
        instance: 0
      }))
      writeLines(app, home, lines)
      const iso = (ago: number) => new Date(now - ago * 60_000).toISOString()
      expect(messages(yield* read(home, app, { since: "25m" }))).toEqual(["m20", "m10", "m0"])
      expect(messages(yield* read(home, app, { since: "1h", until: "35m" }))).toEqual(["m50", "m40"])
      expect(messages(yield* read(home, app, { until: "45m" }))).toEqual(["m50"])
      expect(messages(yield* read(home, app, { since: iso(41), until: iso(11) }))).toEqual(["m40", "m30", "m20"])
      expect(messages(yield* read(home, app, { since: "2h", lines: 2 }))).toEqual(["m10", "m0"])
      expect(yield* read(home, app, { since: "500ms" })).toEqual([])
    })
  )

  it.live("reads rotated and gzipped files, newest last", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "rot" })
      const format = lineFormatter(app)
      const file = instanceFiles(app, 0, home).out_file
      const base = Date.now() - 3_600_000
      const chunk = (from: number) =>
        Array.from({ length: 10 }, (_, i) => format(`r${from + i}`, base + (from + i) * 1000, "out", 0)).join("")
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(`${file}.20260101-000000-000.gz`, zlib.gzipSync(chunk(0)))
      fs.writeFileSync(`${file}.20260101-000000-000-1`, chunk(10))
      fs.writeFileSync(`${file}.20260102-000000-000.gz`, zlib.gzipSync(chunk(20)))
      fs.writeFileSync(file, chunk(30))
      // Files that only look alike are not read.
      fs.writeFileSync(`${file}.20260103-000000-000.gz.tmp`, "junk\n")
      fs.writeFileSync(`${file}.bak`, chunk(100))
      const all = Array.from({ length: 40 }, (_, i) => `r${i}`)
      expect(messages(yield* read(home, app, { lines: 1000 }))).toEqual(all)
      expect(messages(yield* read(home, app, { lines: 15 }))).toEqual(all.slice(25))
      expect(messages(yield* read(home, app, { grep: "^r(5|15|25|35)$" }))).toEqual(["r5", "r15", "r25", "r35"])
      expect(messages(yield* read(home, app, { since: new Date(base + 8500).toISOString(), lines: 3 }))).toEqual([
        "r37",
        "r38",
        "r39"
      ])
      expect(
        messages(
          yield* read(home, app, {
            since: new Date(base + 8500).toISOString(),
            until: new Date(base + 12500).toISOString()
          })
        )
      ).toEqual(["r9", "r10", "r11", "r12"])
    })
  )

  it.live("reads JSON lines and merged files: instances from JSON, none from merged text", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const now = Date.now() - 5000
      const json = testApp({ name: "mj", instances: 2, merge_logs: true, log_type: "json" })
      writeLines(json, home, [
        { ms: now, message: "zero", stream: "out", instance: 0 },
        { ms: now + 1, message: "one", stream: "out", instance: 1 },
        { ms: now + 2, message: "one err", stream: "err", instance: 1 }
      ])
      expect((yield* read(home, json, {})).map((e) => [e.instance, e.stream, e.message])).toEqual([
        [0, "out", "zero"],
        [1, "out", "one"],
        [1, "err", "one err"]
      ])
      expect(messages(yield* read(home, json, { instance: 1 }))).toEqual(["one", "one err"])

      const text = testApp({ name: "mt", instances: 2, merge_logs: true })
      writeLines(text, home, [
        { ms: now, message: "a", stream: "out", instance: 0 },
        { ms: now + 1, message: "b", stream: "out", instance: 1 }
      ])
      expect((yield* read(home, text, {})).map((e) => [e.instance, e.message])).toEqual([
        [null, "a"],
        [null, "b"]
      ])
    })
  )

  it.live("refuses bad queries with BAD_REQUEST naming the field", () =>
    Effect.gen(function* () {
      const home = freshHome()
      const app = testApp({ name: "bad", instances: 2 })
      const field = (query: LogQuery) =>
        read(home, app, query).pipe(
          Effect.either,
          Effect.map(Either.match({ onLeft: (error) => [error._tag, error.details.field], onRight: () => ["ok"] }))
        )
      expect(yield* field({ grep: "(unclosed" })).toEqual(["BAD_REQUEST", "grep"])
      expect(yield* field({ grep: "[z-a]" })).toEqual(["BAD_REQUEST", "grep"])
      expect(yield* field({ grep: "/x/q" })).toEqual(["BAD_REQUEST", "grep"])
      expect(yield* field({ since: "yesterday" })).toEqual(["BAD_REQUEST", "since"])
      expect(yield* field({ until: "2026-02-30" })).toEqual(["BAD_REQUEST", "until"])
      expect(yield* field({ since: "1m", until: "1h" })).toEqual(["BAD_REQUEST", "until"])
      expect(yield* field({ instance: 2 })).toEqual(["BAD_REQUEST", "instance"])
      expect(yield* field({ lines: -1 })).toEqual(["BAD_REQUEST", "lines"])
      expect(yield* field({ grep: "fine", since: "1m" })).toEqual(["ok"])
    })
  )

  it.live("reads what real children wrote, in the order they wrote it across streams and instances", () => {
    const home = freshHome()
    const app = testApp({ name: "live", instances: 2 })
    // Each child writes a line when told to on stdin, alternating stdout and stderr. The test tells
    // it only after the previous line arrived, and the child waits 2 ms first, so arrival times are
    // strictly increasing whatever the machine's load.
    const script = `
      const tag = process.argv[1];
      let n = 0;
      process.stdin.on("data", (data) => {
        for (const _ of data.toString()) {
          setTimeout(() => {
            const line = tag + " " + n;
            if (n++ % 2 === 0) process.stdout.write(line + "\\n"); else process.stderr.write(line + "\\n");
          }, 2);
        }
      });`
    const PER_CHILD = 8
    const expected = Array.from({ length: 2 * PER_CHILD }, (_, k) => `i${k % 2} ${k >> 1}`)
    return Effect.gen(function* () {
      const store = yield* LogStore
      const seen: Array<string> = []
      const kids: Array<Child> = []
      // Alternate between the two children: i0 0, i1 0, i0 1, i1 1, …
      const next = () => {
        if (seen.length < expected.length) kids[seen.length % 2]!.process.stdin.write("x")
      }
      yield* Effect.scoped(
        Effect.gen(function* () {
          for (const instance of [0, 1]) {
            const logs = yield* store.openInstance(app, instance, (entry) => {
              seen.push(entry.message)
              next()
            })
            const child = spawnNode(script, `i${instance}`)
            logs.attach(child.process.stdout, "out")
            logs.attach(child.process.stderr, "err")
            kids.push(child)
          }
          next()
          yield* eventually(() => seen.length === expected.length)
          for (const child of kids) child.process.stdin.end()
          for (const child of kids) yield* exited(child)
        })
      )
      expect(seen).toEqual(expected)
      const entries = yield* store.read(app, { lines: 10 })
      expect(messages(entries)).toEqual(expected.slice(-10))
      expect(entries.map((e) => [e.instance, e.stream])).toEqual(
        expected.slice(-10).map((m) => {
          const [tag, n] = m.split(" ")
          return [Number(tag!.slice(1)), Number(n) % 2 === 0 ? "out" : "err"]
        })
      )
      const timestamps = entries.map((e) => Date.parse(e.timestamp!))
      expect([...timestamps].sort((a, b) => a - b)).toEqual(timestamps)
    }).pipe(Effect.provide(storeLayer(home)))
  })
})
