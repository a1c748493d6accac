/** monit's screen as text: layout at several sizes, colors, and the small pure parts (keys, ring, sparkline, feed). */
import { describe, expect, it } from "@effect/vitest"
import { decodeFeedMessage, feedEvents } from "../../../src/cli/monit/feedMessage"
import { parseKeys } from "../../../src/cli/monit/keys"
import { initialMonitState, type MonitEvent, type MonitState, reduce } from "../../../src/cli/monit/MonitState"
import { printable, renderScreen } from "../../../src/cli/monit/monitScreen"
import { emptyRing, pushRing, ringItems, ringOf } from "../../../src/cli/monit/ringBuffer"
import { sparkline } from "../../../src/cli/monit/sparkline"
import { visibleLength } from "../../../src/cli/monitView"
import { detail, row } from "./fixtures"

const NOW = new Date(2026, 10, 21, 14, 3, 9).getTime()
const stateOf = (events: ReadonlyArray<MonitEvent>): MonitState =>
  events.reduce((state, event) => reduce(state, event).state, initialMonitState)
const api = row({ id: 0, name: "api" })
const worker = row({
  id: 1,
  name: "worker",
  pid: null,
  status: "errored",
  cpu_usage: 0,
  memory_usage: 0,
  health_status: "none",
  restarts: 15
})
const at = (second: number) => new Date(2026, 10, 21, 14, 2, second).toISOString()
const busy = stateOf([
  { _tag: "Connection", connection: { _tag: "Live" } },
  { _tag: "List", rows: [api, worker] },
  { _tag: "Host", host: { cpuPercent: 37.4, memoryUsed: 3 * 1024 ** 3, memoryTotal: 8 * 1024 ** 3 } },
  { _tag: "Detail", detail: detail(api) },
  ...[10, 20, 90, 30].map(
    (cpu, i): MonitEvent => ({
      _tag: "Metrics",
      at: NOW - (4 - i) * 1000,
      processes: [{ id: 0, cpu_usage: cpu, memory_usage: (40 + i) * 1024 * 1024, uptime: "0h 3m 2s", restarts: 1 }]
    })
  ),
  {
    _tag: "Status",
    id: 0,
    status: "online",
    pid: 4242,
    exit: { code: 1, signal: null },
    at: new Date(2026, 10, 21, 14, 1, 0).getTime()
  },
  { _tag: "Log", id: 0, lines: [{ timestamp: at(1), stream: "out", level: "info", message: "GET /health 200" }] },
  {
    _tag: "Log",
    id: 0,
    lines: [{ timestamp: at(2), stream: "err", level: "error", message: "ERROR db timeout\u001b[31m red\u0007" }]
  },
  { _tag: "Log", id: 0, lines: [{ timestamp: at(3), stream: "out", level: "warn", message: "WARN slow request" }] }
])

describe("monit's screen", () => {
  it("draws the table, the details with sparklines, the logs and the keys at 120×30", () => {
    const screen = renderScreen(busy, { width: 120, height: 30 }, { color: false, now: NOW })
    expect(screen).toHaveLength(30)
    for (const line of screen) expect(visibleLength(line)).toBeLessThanOrEqual(120)
    expect(screen[0]).toMatch(
      /^pmfx monit {2}1\/2 online {2}host cpu 37% {2}mem 3\.0 GB \/ 8\.0 GB +● live {2}14:03:09$/
    )
    const text = screen.join("\n")
    expect(screen[1]).toMatch(/^ {2}Name +Status +CPU +Memory +↺ +Uptime +│ api id 0 · default {2}online$/)
    expect(screen[2]).toMatch(/^▸ api +online +30\.0% +43\.0 MB +1 +3m 2s +│ pid +4242 +port 4000$/)
    expect(screen.find((line) => line.startsWith("  worker"))).toMatch(/^ {2}worker +errored +- +- +15 +- +│/)
    expect(text).toMatch(/│ health +healthy \(11 ms\)/)
    expect(text).toMatch(/│ last exit +code 1 at 14:01:00/)
    expect(text).toMatch(/│ script +\/srv\/api\/server\.js --verbose/)
    expect(text).toMatch(/│ cwd +\/srv\/api/)
    // Where the app was defined: the file to edit and apply.
    expect(text).toMatch(/│ config +\/srv\/api\/ecosystem\.config\.js/)
    expect(text).toMatch(/│ cpu +▂▃█▃ 30\.0% peak 90%/)
    expect(text).toMatch(/│ mem +▁▃▆█ 43\.0 MB \(40\.0 MB–43\.0 MB\)/)
    expect(text).toMatch(/│ +4 samples over 3s/)
    const logsAt = screen.findIndex((line) => line.startsWith("─ Logs: api "))
    expect(logsAt).toBeGreaterThan(5)
    expect(screen.slice(logsAt + 1, logsAt + 4)).toEqual([
      "14:02:01 out GET /health 200",
      "14:02:02 err ERROR db timeout red",
      "14:02:03 out WARN slow request"
    ])
    expect(screen[29]).toMatch(/^↑↓\/jk select {2}\/ filter {2}r restart {2}R reload {2}s stop {2}S start .* q quit$/)
  })

  it("stacks the details under the table below 100 columns, and fits every size", () => {
    const narrow = renderScreen(busy, { width: 80, height: 24 }, { color: false, now: NOW })
    expect(narrow.some((line) => line.startsWith("─ Details "))).toBe(true)
    expect(narrow.some((line) => line.startsWith("─ Logs: api "))).toBe(true)
    for (const [width, height] of [
      [200, 60],
      [100, 20],
      [79, 24],
      [60, 12],
      [40, 8],
      [20, 5],
      [5, 2],
      [1, 1]
    ] as const) {
      const screen = renderScreen(busy, { width, height }, { color: true, now: NOW })
      expect(screen, `${width}x${height}`).toHaveLength(height)
      for (const line of screen) expect(visibleLength(line), `${width}x${height}: ${line}`).toBeLessThanOrEqual(width)
    }
  })

  it("colors status, streams and levels, and marks the selected row", () => {
    const screen = renderScreen(busy, { width: 120, height: 30 }, { color: true, now: NOW }).join("\n")
    expect(screen).toContain("\u001b[32monline\u001b[39m")
    expect(screen).toContain("\u001b[31merrored\u001b[39m")
    expect(screen).toContain("\u001b[31merr\u001b[39m \u001b[31mERROR db timeout red\u001b[39m")
    expect(screen).toContain("\u001b[33mWARN slow request\u001b[39m")
    expect(screen).toContain("\u001b[7m▸ api")
  })

  it("shows the filter being typed, the lines it keeps, and a confirmation", () => {
    const filtering = [..."/slow"].reduce(
      (state, char) => reduce(state, { _tag: "Key", key: { _tag: "Char", char } }).state,
      busy
    )
    const screen = renderScreen(filtering, { width: 120, height: 30 }, { color: false, now: NOW })
    expect(screen[29]).toMatch(/^\/ slow  {2}type to filter/)
    const logsAt = screen.findIndex((line) => line.startsWith('─ Logs: api · filter "slow" (1 lines)'))
    expect(logsAt).toBeGreaterThan(0)
    expect(screen[logsAt + 1]).toBe("14:02:03 out WARN slow request")
    const asking = reduce(busy, { _tag: "Key", key: { _tag: "Char", char: "s" } }).state
    expect(renderScreen(asking, { width: 120, height: 30 }, { color: false, now: NOW })[29]).toBe("Stop api? y/n")
  })

  it("says what is missing: no processes, no lines, no connection", () => {
    const down = stateOf([
      { _tag: "List", rows: [] },
      { _tag: "Connection", connection: { _tag: "Down", reason: "daemon unreachable (connect ENOENT)" } }
    ])
    const screen = renderScreen(down, { width: 120, height: 20 }, { color: false, now: NOW })
    expect(screen[0]).toContain("✕ daemon unreachable (connect ENOENT); retrying")
    expect(screen.join("\n")).toContain("no processes: start one with `pmfx start <command|file>`")
    const quiet = stateOf([{ _tag: "List", rows: [api] }])
    expect(renderScreen(quiet, { width: 120, height: 20 }, { color: false, now: NOW }).join("\n")).toContain(
      "no lines yet"
    )
  })

  it("makes an app's output safe to draw", () => {
    expect(printable("a\tb\u001b[1;31mc\u001b[0m\r\u0000d\u009b")).toBe("a  bcd")
  })
})

describe("monit's parts", () => {
  it("reads keys, arrows and escape sequences from raw terminal input", () => {
    expect(parseKeys("jk\u001b[A\u001b[B\u001bOA\r\u007f\u0003q")).toEqual([
      { _tag: "Char", char: "j" },
      { _tag: "Char", char: "k" },
      { _tag: "Up" },
      { _tag: "Down" },
      { _tag: "Up" },
      { _tag: "Enter" },
      { _tag: "Backspace" },
      { _tag: "CtrlC" },
      { _tag: "Char", char: "q" }
    ])
    expect(parseKeys("\u001b")).toEqual([{ _tag: "Escape" }])
    expect(parseKeys("\u001b[5~\u001b[6~\u001b[H\u001b[F")).toEqual([
      { _tag: "PageUp" },
      { _tag: "PageDown" },
      { _tag: "Home" },
      { _tag: "End" }
    ])
    // An F-key is skipped whole, not read as Escape and letters.
    expect(parseKeys("\u001b[15~x")).toEqual([{ _tag: "Char", char: "x" }])
  })

  it("keeps the newest items of a ring buffer, without changing the old buffer", () => {
    const three = ringOf(3, [1, 2, 3])
    const four = pushRing(three, 4)
    expect(ringItems(three)).toEqual([1, 2, 3])
    expect(ringItems(four)).toEqual([2, 3, 4])
    expect(ringItems(pushRing(four, 5, 6, 7, 8))).toEqual([6, 7, 8])
    expect(ringItems(emptyRing(2))).toEqual([])
  })

  it("draws sparklines right-aligned, scaled to a ceiling", () => {
    expect(sparkline([0, 50, 100], 5, 100)).toBe("  ▁▅█")
    expect(sparkline([1, 2, 3, 4, 5, 6], 3, 6)).toBe("▆▇█")
    expect(sparkline([200, Number.NaN], 2, 100)).toBe("█▁")
    expect(sparkline([1], 0, 1)).toBe("")
  })

  it("reads the feed's messages, and ignores what it has no use for", () => {
    const status = decodeFeedMessage(
      JSON.stringify({
        type: "process_status",
        data: {
          id: 1,
          name: "w",
          instance: 0,
          status: "restarting",
          previous_status: "online",
          pid: null,
          exit_code: null,
          signal: "SIGKILL"
        },
        timestamp: "2026-11-21T14:00:00.000Z"
      })
    )
    expect(feedEvents(status!)).toEqual([
      {
        _tag: "Status",
        id: 1,
        status: "restarting",
        pid: null,
        exit: { code: null, signal: "SIGKILL" },
        at: Date.parse("2026-11-21T14:00:00.000Z")
      }
    ])
    const log = decodeFeedMessage(
      JSON.stringify({
        type: "log",
        data: { id: 2, name: "w", instance: 0, timestamp: null, stream: "err", level: "warn", message: "hm" },
        timestamp: "2026-11-21T14:00:00.000Z"
      })
    )
    expect(feedEvents(log!)).toEqual([
      { _tag: "Log", id: 2, lines: [{ timestamp: null, stream: "err", level: "warn", message: "hm" }] }
    ])
    expect(
      decodeFeedMessage(JSON.stringify({ type: "pong", data: {}, timestamp: "2026-11-21T14:00:00.000Z" }))
    ).toBeUndefined()
    expect(decodeFeedMessage("not json")).toBeUndefined()
    expect(decodeFeedMessage(JSON.stringify({ type: "log", data: { id: "x" }, timestamp: "t" }))).toBeUndefined()
  })
})
