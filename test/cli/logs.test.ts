/** `pmfx logs`: the last lines with each filter, `--follow` over Server-Sent Events, and the pure parts. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { dropOverlap, formatLogLine } from "../../src/cli/commands/logs"
import { initialSseState, sseEvents, sseStep } from "../../src/cli/sse"
import type { LogEntry } from "../../src/logs/LogEntry"
import { makeSandbox, PMFX_BIN, type Sandbox } from "../support/cli"
import { createApps } from "./createApp"
import { eventually, fixtures, json } from "./helpers"

let sandbox: Sandbox
let followers: Array<ChildProcess> = []

/** A sandbox for each test of the calling describe block. */
const useOwnSandbox = () => {
  beforeEach(() => {
    sandbox = makeSandbox()
    followers = []
  })
  afterEach(() => {
    for (const child of followers) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    sandbox.cleanup()
  })
}

const entry = (fields: Partial<LogEntry>): LogEntry => ({
  timestamp: "2026-11-21T10:00:00.000Z",
  app: "api",
  instance: 0,
  stream: "out",
  level: "info",
  message: "hello",
  ...fields
})

/** The lines `test/fixtures/log-lines.js` writes per instance, as `logs` prints them. */
const linesOf = (i: number) => ({
  out: [
    `lines[${i}] i${i} hello alpha`,
    `lines[${i}] [WARN] i${i} disk almost full`,
    `lines[${i}] DEBUG i${i} cache details`,
    `lines[${i}] i${i} plain beta`
  ],
  err: [
    `lines[${i}] i${i} stderr beta`,
    `lines[${i}] INFO i${i} informative on stderr`,
    `lines[${i}] FATAL i${i} meltdown`
  ]
})

const printed = (stdout: string) => stdout.split("\n").filter((line) => line !== "")

/** Two instances of the fixture, every line of both written. */
const startLines = async () => {
  await createApps(sandbox, { name: "lines", script: path.join(fixtures, "log-lines.js"), instances: 2 })
  await eventually(() => expect(json<Array<LogEntry>>(sandbox.pmfx(["logs", "lines", "--json"]))).toHaveLength(14))
}

describe("pmfx logs <name>", () => {
  // These tests only read the lines of the same app: one daemon and one `lines` app for the block,
  // started by the first test that asks (readLines).
  let started: Promise<void> | undefined
  const readLines = () => (started ??= startLines())
  beforeAll(() => {
    sandbox = makeSandbox()
  })
  afterAll(() => sandbox.cleanup())
  it("prints every line as app[instance] message, with each filter", async () => {
    await readLines()
    const all = sandbox.pmfx(["logs", "lines"])
    expect(all.code).toBe(0)
    expect(all.stdout).not.toMatch(/\u001b\[/)
    const expected = [...Object.values(linesOf(0)).flat(), ...Object.values(linesOf(1)).flat()]
    expect(printed(all.stdout).sort()).toEqual(expected.sort())

    // --error: standard error only.
    const errors = sandbox.pmfx(["logs", "lines", "--error"])
    expect(errors.code).toBe(0)
    expect(printed(errors.stdout).sort()).toEqual([...linesOf(0).err, ...linesOf(1).err].sort())

    // --grep: a regular expression on the message.
    expect(printed(sandbox.pmfx(["logs", "lines", "--grep", "b[e]ta$"]).stdout).sort()).toEqual(
      [`lines[0] i0 plain beta`, `lines[0] i0 stderr beta`, `lines[1] i1 plain beta`, `lines[1] i1 stderr beta`].sort()
    )

    // --level: that level and the more severe ones (stderr lines without a level are errors).
    expect(printed(sandbox.pmfx(["logs", "lines", "--level", "warn"]).stdout).sort()).toEqual(
      [0, 1]
        .flatMap((i) => [
          `lines[${i}] [WARN] i${i} disk almost full`,
          `lines[${i}] i${i} stderr beta`,
          `lines[${i}] FATAL i${i} meltdown`
        ])
        .sort()
    )

    // --instance: one instance.
    expect(printed(sandbox.pmfx(["logs", "lines", "--instance", "1"]).stdout).sort()).toEqual(
      Object.values(linesOf(1)).flat().sort()
    )

    // --lines: the newest N of what matches.
    const newest = sandbox.pmfx(["logs", "lines", "--instance", "0", "--error", "--lines", "2"])
    expect(printed(newest.stdout)).toEqual([`lines[0] INFO i0 informative on stderr`, `lines[0] FATAL i0 meltdown`])
    expect(printed(sandbox.pmfx(["logs", "lines", "-n", "0"]).stdout)).toEqual([])

    // --since / --until bound the line's own time.
    expect(printed(sandbox.pmfx(["logs", "lines", "--since", "1h"]).stdout)).toHaveLength(14)
    expect(printed(sandbox.pmfx(["logs", "lines", "--until", "1h"]).stdout)).toEqual([])
  })

  it("prints the entries as JSON, and timestamps with --timestamps", async () => {
    await readLines()
    const entries = json<Array<LogEntry>>(
      sandbox.pmfx(["logs", "lines", "--json", "--error", "--instance", "1", "--lines", "1"])
    )
    expect(entries).toEqual([
      {
        timestamp: expect.any(String),
        app: "lines",
        instance: 1,
        stream: "err",
        level: "fatal",
        message: "FATAL i1 meltdown"
      }
    ])

    const stamped = printed(sandbox.pmfx(["logs", "lines", "--timestamps", "--instance", "0", "--lines", "1"]).stdout)
    expect(stamped).toHaveLength(1)
    expect(stamped[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z lines\[0\] /)
  })

  it("takes PM2's flags: --err, --out, --raw, --nostream (pm2 logs --lines 50 --raw --nostream)", async () => {
    await readLines()
    const errOnly = sandbox.pmfx(["logs", "lines", "--err"])
    expect(errOnly.code, errOnly.stderr).toBe(0)
    expect(printed(errOnly.stdout).sort()).toEqual([...linesOf(0).err, ...linesOf(1).err].sort())
    const outOnly = sandbox.pmfx(["logs", "lines", "--out"])
    expect(outOnly.code, outOnly.stderr).toBe(0)
    expect(printed(outOnly.stdout).sort()).toEqual([...linesOf(0).out, ...linesOf(1).out].sort())
    // --raw: the messages alone, without the app[instance] prefix; --nostream is what logs does anyway.
    const raw = sandbox.pmfx(["logs", "--lines", "50", "--raw", "--nostream", "--instance", "1", "--out"])
    expect(raw.code, raw.stderr).toBe(0)
    expect(printed(raw.stdout).sort()).toEqual(
      linesOf(1)
        .out.map((line) => line.replace("lines[1] ", ""))
        .sort()
    )
    // Without a target and with --nostream, no hint about following on stderr.
    expect(raw.stderr).toBe("")
    const stampedRaw = printed(sandbox.pmfx(["logs", "lines", "--raw", "-t", "--lines", "1", "--err"]).stdout)
    expect(stampedRaw).toHaveLength(1)
    expect(stampedRaw[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z FATAL i\d meltdown$/)

    // The combinations that cannot be: exit 2 with the field and what to do; nothing else changed.
    const both = sandbox.pmfx(["logs", "lines", "--err", "--out", "--json"])
    expect(both.code).toBe(2)
    expect(JSON.parse(both.stdout)).toEqual({
      success: false,
      error: {
        code: "BAD_REQUEST",
        message: "--out: cannot be combined with --error: each keeps one stream",
        details: {
          field: "--out",
          reason: "cannot be combined with --error: each keeps one stream",
          suggestion: "give neither for both streams, or one of them"
        }
      }
    })
    const streamed = sandbox.pmfx(["logs", "lines", "--nostream", "--follow"])
    expect(streamed.code).toBe(2)
    expect(streamed.stderr).toBe(
      "BAD_REQUEST --nostream: cannot be combined with --follow\n  suggestion: drop --follow to print the last lines and exit, or drop --nostream to keep following\n"
    )
    expect(printed(sandbox.pmfx(["logs", "lines"]).stdout)).toHaveLength(14)
  })

  it("exits 4 for an unknown app and 2 for a bad option, with the code and a suggestion on stderr", async () => {
    await readLines()
    const unknown = sandbox.pmfx(["logs", "linse"])
    expect(unknown.code, `${unknown.stdout}\n${unknown.stderr}`).toBe(4)
    expect(unknown.stderr).toContain("PROCESS_NOT_FOUND")
    expect(unknown.stderr).toContain('did you mean "lines"?')
    const followed = sandbox.pmfx(["logs", "nope", "--follow"])
    expect(followed.code).toBe(4)
    expect(followed.stderr).toContain("PROCESS_NOT_FOUND")
    const jsonError = sandbox.pmfx(["logs", "nope", "--json"])
    expect(jsonError.code).toBe(4)
    expect(JSON.parse(jsonError.stdout).error.code).toBe("PROCESS_NOT_FOUND")

    const negative = sandbox.pmfx(["logs", "lines", "--lines", "-1"])
    expect(negative.code).toBe(2)
    expect(negative.stderr).toContain("BAD_REQUEST --lines: -1 is negative")
    const badSince = sandbox.pmfx(["logs", "lines", "--since", "yesterday-ish"])
    expect(badSince.code).toBe(2)
    expect(badSince.stderr).toContain("BAD_REQUEST")
    expect(badSince.stderr).toContain("suggestion:")
    expect(sandbox.pmfx(["logs", "lines", "--level", "loud"]).code).toBe(2)
    expect(sandbox.pmfx(["logs", "lines", "--follow", "--until", "1h"]).code).toBe(2)
  })
})

describe("pmfx logs --grep", () => {
  useOwnSandbox()
  it("answers at once for a pattern that is exponential for RegExp, and refuses one RE2 cannot run (exit 2)", async () => {
    const print = `console.log("${"a".repeat(27)}"); console.log("${"a".repeat(27)}b"); setInterval(() => {}, 1000)`
    await createApps(sandbox, { name: "as", script: process.execPath, args: ["-e", print] })
    await eventually(() => expect(json<Array<LogEntry>>(sandbox.pmfx(["logs", "as", "--json"]))).toHaveLength(2))
    // 12.9 s with RegExp on the 27 a's and a b; RE2 takes time linear in the line.
    const found = sandbox.pmfx(["logs", "as", "--grep", "^(a|a?)+$"])
    expect(found.code, found.stderr).toBe(0)
    expect(printed(found.stdout)).toEqual([`as[0] ${"a".repeat(27)}`])

    const refused = sandbox.pmfx(["logs", "as", "--grep", "(a)\\1"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("BAD_REQUEST")
    expect(refused.stderr).toContain("backreferences like \\1 are not supported")
    expect(refused.stderr).toContain("suggestion:")
    // Nothing else was affected.
    const list = sandbox.pmfx(["list", "--json"])
    expect(list.code, list.stderr).toBe(0)
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ name: "as", status: expect.stringMatching(/^(starting|online)$/) })
    ])
  })
})

describe("pmfx logs --follow", () => {
  useOwnSandbox()
  /** Runs `logs --follow` in the background; `output()` is what it printed so far. */
  const follow = (args: ReadonlyArray<string>) => {
    const child = spawn(process.execPath, [PMFX_BIN, "logs", ...args, "--follow"], {
      cwd: sandbox.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home },
      stdio: ["ignore", "pipe", "pipe"]
    })
    followers.push(child)
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    return { child, output: () => stdout, errors: () => stderr, exited }
  }

  it("prints the last lines, then each new line as it is written, until Ctrl-C (exit 0)", async () => {
    // An app that writes one line, then another each time a trigger file appears.
    const trigger = path.join(sandbox.dir, "trigger")
    const app = sandbox.write(
      "on-trigger.js",
      `const fs = require("fs")
console.log("ready")
console.error("waiting")
setInterval(() => {
  try {
    const text = fs.readFileSync(${JSON.stringify(trigger)}, "utf8")
    fs.unlinkSync(${JSON.stringify(trigger)})
    console.log("triggered " + text)
    console.error("complained " + text)
  } catch {}
}, 50)
`
    )
    await createApps(sandbox, { name: "trig", script: app })
    await eventually(() => expect(sandbox.pmfx(["logs", "trig"]).stdout).toContain("trig[0] ready"))

    const text = follow(["trig", "--lines", "5"])
    const ndjson = follow(["trig", "--json", "--error"])
    // Once a follower has printed the last lines, it listens (it subscribes before reading them).
    await eventually(() => expect(text.output()).toContain("trig[0] waiting"))
    await eventually(() => expect(ndjson.output()).toContain("waiting"))

    fs.writeFileSync(trigger, "one")
    await eventually(() => expect(text.output()).toContain("trig[0] complained one"))
    await eventually(() => expect(text.output()).toContain("trig[0] triggered one"))
    await eventually(() => expect(ndjson.output()).toContain("complained one"))
    fs.writeFileSync(path.join(sandbox.dir, "trigger.tmp"), "two")
    fs.renameSync(path.join(sandbox.dir, "trigger.tmp"), trigger)
    await eventually(() => expect(text.output()).toContain("trig[0] triggered two"))
    await eventually(() => expect(text.output()).toContain("trig[0] complained two"))
    await eventually(() => expect(ndjson.output()).toContain("complained two"))

    // Each line once; stdout and stderr are separate pipes, so only their order within a round holds.
    const lines = printed(text.output())
    expect(lines.slice(0, 2).sort()).toEqual(["trig[0] ready", "trig[0] waiting"])
    expect(lines.slice(2, 4).sort()).toEqual(["trig[0] complained one", "trig[0] triggered one"])
    expect(lines.slice(4).sort()).toEqual(["trig[0] complained two", "trig[0] triggered two"])
    // --json with --follow: one JSON object per line (NDJSON), standard error only.
    const objects = printed(ndjson.output()).map((line) => JSON.parse(line) as LogEntry)
    expect(objects.map((e) => [e.stream, e.message, e.instance, e.app])).toEqual([
      ["err", "waiting", 0, "trig"],
      ["err", "complained one", 0, "trig"],
      ["err", "complained two", 0, "trig"]
    ])

    text.child.kill("SIGINT")
    ndjson.child.kill("SIGINT")
    expect(await text.exited).toBe(0)
    expect(await ndjson.exited).toBe(0)
    expect(text.errors()).toBe("")
  })

  it("ends with exit 7 when the daemon goes away", async () => {
    await startLines()
    const followed = follow(["lines", "--lines", "1"])
    await eventually(() => expect(printed(followed.output())).toHaveLength(1))
    process.kill(Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8")), "SIGKILL")
    expect(await followed.exited).toBe(7)
    expect(followed.errors()).toContain("DAEMON_UNREACHABLE the daemon closed the log stream")
  })
})

describe("log lines for people", () => {
  const plain = { isTTY: false } as NodeJS.WriteStream
  it("prints app[instance] message, the timestamp first with --timestamps", () => {
    expect(formatLogLine(entry({}), { timestamps: false, stream: plain })).toBe("api[0] hello")
    expect(formatLogLine(entry({ stream: "err", instance: 2 }), { timestamps: true, stream: plain })).toBe(
      "2026-11-21T10:00:00.000Z api[2] hello"
    )
    // --raw: the message alone (after its timestamp with --timestamps), never colored.
    const tty = { isTTY: true } as NodeJS.WriteStream
    expect(formatLogLine(entry({ stream: "err" }), { timestamps: false, raw: true, stream: tty })).toBe("hello")
    expect(formatLogLine(entry({}), { timestamps: true, raw: true, stream: plain })).toBe(
      "2026-11-21T10:00:00.000Z hello"
    )
    // Merged logs in text form do not say which instance wrote a line.
    expect(formatLogLine(entry({ instance: null }), { timestamps: false, stream: plain })).toBe("api hello")
  })

  it("colors standard error lines red on a color terminal only", () => {
    const saved = process.env.NO_COLOR
    delete process.env.NO_COLOR
    try {
      const tty = { isTTY: true } as NodeJS.WriteStream
      expect(formatLogLine(entry({ stream: "err" }), { timestamps: false, stream: tty })).toBe(
        "\u001b[31mapi[0] hello\u001b[39m"
      )
      expect(formatLogLine(entry({}), { timestamps: false, stream: tty })).not.toContain("\u001b[31m")
      process.env.NO_COLOR = "1"
      expect(formatLogLine(entry({ stream: "err" }), { timestamps: false, stream: tty })).toBe("api[0] hello")
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR
      else process.env.NO_COLOR = saved
    }
  })
})

describe("following without losing or repeating a line", () => {
  it("drops the live lines that the last lines already showed, and keeps the new ones", () => {
    const stored = [entry({ message: "a" }), entry({ message: "b" }), entry({ message: "c", stream: "err" })]
    const early = [entry({ message: "c", stream: "err" }), entry({ message: "d" })]
    expect(dropOverlap(stored, early).map((e) => e.message)).toEqual(["d"])
    expect(dropOverlap(stored, [])).toEqual([])
    expect(dropOverlap([], early)).toEqual(early)
  })

  it("tells a repeated message from the same line by its time", () => {
    const tick = (at: string) => entry({ message: "tick", timestamp: at })
    const stored = [tick("2026-11-21T10:00:00.000Z"), tick("2026-11-21T10:00:02.000Z")]
    expect(dropOverlap(stored, [tick("2026-11-21T10:00:04.000Z")])).toHaveLength(1)
    expect(dropOverlap(stored, [tick("2026-11-21T10:00:02.000Z"), tick("2026-11-21T10:00:04.000Z")])).toEqual([
      tick("2026-11-21T10:00:04.000Z")
    ])
  })

  it("only matches the newest stored lines (as many as the early live ones)", () => {
    const stored = [entry({ message: "old", timestamp: null }), entry({ message: "x" })]
    expect(dropOverlap(stored, [entry({ message: "old", timestamp: null })])).toHaveLength(1)
  })
})

describe("Server-Sent Events", () => {
  const feed = (lines: ReadonlyArray<string>) => {
    let state = initialSseState
    const events: Array<unknown> = []
    for (const line of lines) {
      const [next, event] = sseStep(state, line)
      state = next
      if (Option.isSome(event)) events.push(event.value)
    }
    return events
  }

  it("dispatches on a blank line, joins data lines, and skips comments", () => {
    expect(
      feed([
        "event: log",
        'data: {"a":1}',
        "",
        ": keep-alive",
        "",
        "data: x",
        "data:y",
        "",
        "event: other",
        "",
        "id: 3",
        "data: z"
      ])
    ).toEqual([
      { event: "log", data: '{"a":1}' },
      { event: "message", data: "x\ny" }
    ])
  })

  it.effect("reads events split anywhere across chunks", () =>
    Effect.gen(function* () {
      const text = 'event: log\ndata: {"m":"é"}\n\n: keep-alive\n\nevent: log\r\ndata: 2\r\n\r\n'
      const bytes = new TextEncoder().encode(text)
      const chunks = [bytes.slice(0, 7), bytes.slice(7, 21), bytes.slice(21, 22), bytes.slice(22)]
      const events = yield* Stream.runCollect(sseEvents(Stream.fromIterable(chunks)))
      expect(Chunk.toReadonlyArray(events)).toEqual([
        { event: "log", data: '{"m":"é"}' },
        { event: "log", data: "2" }
      ])
    })
  )
})
