import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as zlib from "node:zlib"
import type { LogEntry } from "../../src/logs/LogEntry"
import type { LogQuery } from "../../src/logs/LogQuery"
import { LogStore } from "../../src/logs/LogStore"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, withEngine } from "../support/engine"

const LINE_COUNT = 200_000
/** A stored text line: `<ISO timestamp> <message>`. */
const STORED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (.*)$/

/** The current file and its rotated files, oldest first. */
const filesOldestFirst = (file: string) =>
  Effect.promise(async () =>
    [...(await listRotatedFiles(file))]
      .reverse()
      .map((r) => r.path)
      .concat(fs.existsSync(file) ? [file] : [])
  )

const readText = (file: string): string => {
  const bytes = fs.readFileSync(file)
  return (file.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8")
}

/** Newlines stored in the files so far (for polling: a file may be in the middle of a write). */
const countLines = (files: ReadonlyArray<string>): number =>
  files.reduce((sum, file) => {
    try {
      const text = readText(file)
      let n = 0
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++
      return sum + n
    } catch {
      // Renamed by a rotation (or still being compressed) between listing and reading.
      return sum
    }
  }, 0)

/** Every stored line of the files, in order (each file ends with a newline). */
const storedLines = (files: ReadonlyArray<string>): Array<string> =>
  files.flatMap((file) => {
    const text = readText(file)
    if (text === "") return []
    expect(text.endsWith("\n"), `${file} ends with a whole line`).toBe(true)
    return text.slice(0, -1).split("\n")
  })

/** Checks that `lines` are exactly `line 0` … `line <n-1>` behind a timestamp, in order. */
const expectAllNumbered = (lines: ReadonlyArray<string>) => {
  expect(lines.length).toBe(LINE_COUNT)
  const wrong: Array<string> = []
  lines.forEach((line, i) => {
    const match = STORED.exec(line)
    if ((match === null || match[1] !== `line ${i}`) && wrong.length < 5) wrong.push(`#${i}: ${JSON.stringify(line)}`)
  })
  expect(wrong).toEqual([])
}

describe("logs through the engine", () => {
  it.live("a child writing 200,000 lines flat out: every line in its out file, in order, none split", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          {
            name: "chatty",
            script: fixture("many-lines.js"),
            autorestart: false,
            env: { LINE_COUNT: String(LINE_COUNT) }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("chatty"), (d) => d.status === "stopped"),
          "the child exited"
        )
        const { out_file } = (yield* pm.get("chatty")).logs
        let seen = 0
        yield* eventually(
          Effect.sync(() => {
            seen = countLines([out_file])
            return seen >= LINE_COUNT
          }),
          "all lines in the out file"
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(`only ${seen} lines were stored`))))
        expectAllNumbered(storedLines([out_file]))
        expect(yield* filesOldestFirst(out_file)).toEqual([out_file])
      })
    )
  )

  it.live(
    "a child that writes a line to each stream and exits at once: both lines are stored, for every one of 20",
    () =>
      // The kernel drops a FIFO's unread bytes when its last descriptor closes: the daemon's read end
      // must be open before the child can exit (openReaders before the spawn, not after).
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const names = Array.from({ length: 20 }, (_, i) => `blink-${i}`)
          const apps = yield* definitions(
            names.map((name) => ({
              name,
              script: "/bin/sh",
              args: ["-c", `echo "out of ${name}"; echo "err of ${name}" >&2`],
              autorestart: false
            }))
          )
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.map(
              Effect.forEach(names, (name) => pm.get(name)),
              (rows) => rows.every((d) => d.status === "stopped")
            ),
            "every child exited"
          )
          const stored = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "")
          const missing = () =>
            Effect.forEach(names, (name) =>
              Effect.map(pm.get(name), ({ logs }) => {
                const out = stored(logs.out_file)
                const err = stored(logs.error_file)
                return STORED.exec(out.trimEnd())?.[1] === `out of ${name}` &&
                  STORED.exec(err.trimEnd())?.[1] === `err of ${name}`
                  ? []
                  : [`${name}: ${JSON.stringify(out)} / ${JSON.stringify(err)}`]
              })
            ).pipe(Effect.map((lists) => lists.flat()))
          yield* eventually(
            Effect.map(missing(), (list) => list.length === 0),
            "every line stored"
          ).pipe(Effect.tapDefect(() => Effect.flatMap(missing(), (list) => Effect.sync(() => console.error(list)))))
        })
      )
  )

  it.live("with max_log_size 1M the lines spread over rotated files, and none is lost or split", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          {
            name: "rotating",
            script: fixture("many-lines.js"),
            autorestart: false,
            max_log_size: "1M",
            max_log_files: 1000,
            env: { LINE_COUNT: String(LINE_COUNT) }
          }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        yield* eventually(
          Effect.map(pm.get("rotating"), (d) => d.status === "stopped"),
          "the child exited"
        )
        const { out_file } = (yield* pm.get("rotating")).logs
        let seen = 0
        yield* eventually(
          Effect.gen(function* () {
            seen = countLines(yield* filesOldestFirst(out_file))
            return seen >= LINE_COUNT
          }),
          "all lines in the current and rotated files"
        ).pipe(Effect.tapDefect(() => Effect.sync(() => console.error(`only ${seen} lines were stored`))))
        const files = yield* filesOldestFirst(out_file)
        // About 8 MB of lines: several rotations happened.
        expect(files.length).toBeGreaterThanOrEqual(5)
        for (const file of files.filter((f) => !f.endsWith(".gz"))) {
          expect(fs.statSync(file).size, file).toBeLessThanOrEqual(1024 * 1024)
        }
        expectAllNumbered(storedLines(files))
      })
    )
  )

  it.live("LogStore.read picks exactly the lines asked for by grep, level, stream and instance", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const logs = yield* LogStore
        const [app] = yield* definitions([{ name: "talker", script: fixture("log-lines.js"), instances: 2 }])
        yield* pm.create([app!], { baseEnv: PATH_ENV })
        const read = (query: LogQuery) => logs.read(app!, query)
        yield* eventually(
          Effect.map(read({ lines: 1000 }), (entries) => entries.length >= 14),
          "all 14 lines stored"
        )

        const all = yield* read({ lines: 1000 })
        expect(all).toHaveLength(14)
        const messages = (entries: ReadonlyArray<LogEntry>) => entries.map((e) => e.message).sort()
        const both = (f: (tag: string) => ReadonlyArray<string>) => [...f("i0"), ...f("i1")].sort()

        // Each line carries its stream, instance, level and bare message.
        expect(all.find((e) => e.message === "[WARN] i1 disk almost full")).toMatchObject({
          app: "talker",
          instance: 1,
          stream: "out",
          level: "warn"
        })
        expect(all.every((e) => e.timestamp !== null && !Number.isNaN(Date.parse(e.timestamp)))).toBe(true)

        expect(messages(yield* read({ grep: "alpha" }))).toEqual(both((t) => [`${t} hello alpha`]))
        expect(messages(yield* read({ grep: "/BETA/i", stream: "out" }))).toEqual(both((t) => [`${t} plain beta`]))
        expect(messages(yield* read({ stream: "err" }))).toEqual(
          both((t) => [`${t} stderr beta`, `INFO ${t} informative on stderr`, `FATAL ${t} meltdown`])
        )
        expect(messages(yield* read({ stream: "out" }))).toEqual(
          both((t) => [
            `${t} hello alpha`,
            `[WARN] ${t} disk almost full`,
            `DEBUG ${t} cache details`,
            `${t} plain beta`
          ])
        )
        // A level keeps that level and everything more severe.
        expect(messages(yield* read({ level: "warn" }))).toEqual(
          both((t) => [`[WARN] ${t} disk almost full`, `${t} stderr beta`, `FATAL ${t} meltdown`])
        )
        expect(messages(yield* read({ level: "fatal" }))).toEqual(both((t) => [`FATAL ${t} meltdown`]))
        const instanceOne = yield* read({ instance: 1 })
        expect(instanceOne).toHaveLength(7)
        expect(instanceOne.every((e) => e.instance === 1 && e.message.includes("i1"))).toBe(true)
        expect(messages(yield* read({ instance: 0, stream: "err", level: "error" }))).toEqual([
          "FATAL i0 meltdown",
          "i0 stderr beta"
        ])
        expect((yield* read({ lines: 3, stream: "out", instance: 0 })).map((e) => e.message)).toEqual([
          "[WARN] i0 disk almost full",
          "DEBUG i0 cache details",
          "i0 plain beta"
        ])
        const badInstance = yield* Effect.flip(read({ instance: 2 }))
        expect(badInstance._tag).toBe("BAD_REQUEST")
      })
    )
  )
})
