/** monit's reducer: selection, log following and filtering, confirmations, metrics history. */
import { describe, expect, it } from "@effect/vitest"
import type { Key } from "../../../src/cli/monit/keys"
import {
  HISTORY_CAPACITY,
  initialMonitState,
  lastExitOf,
  type LogLine,
  type MonitEvent,
  type MonitState,
  reduce,
  type Step,
  visibleLogs
} from "../../../src/cli/monit/MonitState"
import { ringItems } from "../../../src/cli/monit/ringBuffer"
import { joinLogEvents } from "../../../src/cli/monit/runMonit"
import { detail, row } from "./fixtures"

const run = (events: ReadonlyArray<MonitEvent>, from: MonitState = initialMonitState): Step => {
  let state = from
  const commands: Array<Step["commands"][number]> = []
  for (const event of events) {
    const step = reduce(state, event)
    state = step.state
    commands.push(...step.commands)
  }
  return { state, commands }
}
const key = (k: Key): MonitEvent => ({ _tag: "Key", key: k })
const char = (c: string): MonitEvent => key({ _tag: "Char", char: c })
const typed = (text: string) => [...text].map(char)
const line = (message: string, fields: Partial<LogLine> = {}): LogLine => ({
  timestamp: "2026-11-21T14:00:00.000Z",
  stream: "out",
  level: "info",
  message,
  ...fields
})

const rows = [row({ id: 0, name: "api" }), row({ id: 1, name: "worker" }), row({ id: 2, name: "cron" })]
const listed = run([{ _tag: "List", rows }])

describe("monit's state", () => {
  it("selects the first row when the list arrives, and follows it", () => {
    expect(listed.state.selected).toBe(0)
    expect(listed.commands).toEqual([{ _tag: "Follow", id: 0 }])
  })

  it("moves the selection with arrows and j/k, within the list", () => {
    const down = run([key({ _tag: "Down" }), char("j"), char("j")], listed.state)
    expect(down.state.selected).toBe(2)
    expect(down.commands).toEqual([
      { _tag: "Follow", id: 1 },
      { _tag: "Follow", id: 2 }
    ])
    const up = run([char("k"), key({ _tag: "Up" }), key({ _tag: "Up" })], down.state)
    expect(up.state.selected).toBe(0)
    expect(run([key({ _tag: "End" })], listed.state).state.selected).toBe(2)
    expect(run([key({ _tag: "Home" })], down.state).state.selected).toBe(0)
  })

  it("keeps only the selected row's log lines, and starts afresh on another row", () => {
    const state = run(
      [
        { _tag: "Log", id: 0, lines: [line("mine")] },
        { _tag: "Log", id: 1, lines: [line("not mine")] }
      ],
      listed.state
    ).state
    expect(visibleLogs(state).map((l) => l.message)).toEqual(["mine"])
    const moved = run(
      [char("j"), { _tag: "Log", id: 0, lines: [line("old row")] }, { _tag: "Log", id: 1, lines: [line("new row")] }],
      state
    ).state
    expect(visibleLogs(moved).map((l) => l.message)).toEqual(["new row"])
  })

  it("merges the last lines read with the lines the feed sent meanwhile, without doubles", () => {
    const state = run(
      [
        { _tag: "Log", id: 0, lines: [line("b", { timestamp: "2026-11-21T14:00:02.000Z" })] },
        { _tag: "Log", id: 0, lines: [line("c", { timestamp: "2026-11-21T14:00:03.000Z" })] },
        {
          _tag: "Backlog",
          id: 0,
          lines: [
            line("a", { timestamp: "2026-11-21T14:00:01.000Z" }),
            line("b", { timestamp: "2026-11-21T14:00:02.000Z" })
          ]
        },
        // A backlog of a row no longer followed changes nothing.
        { _tag: "Backlog", id: 1, lines: [line("other")] }
      ],
      listed.state
    ).state
    expect(visibleLogs(state).map((l) => l.message)).toEqual(["a", "b", "c"])
  })

  it("filters the log lines with / (any case), Enter keeps the filter, Esc clears it", () => {
    const withLines = run(
      [
        { _tag: "Log", id: 0, lines: [line("GET /health 200")] },
        { _tag: "Log", id: 0, lines: [line("POST /orders 500")] }
      ],
      listed.state
    ).state
    const typing = run([char("/"), ...typed("ordeX"), key({ _tag: "Backspace" }), ...typed("RS")], withLines).state
    expect(typing.prompt._tag).toBe("Filter")
    expect(typing.filter).toBe("ordeRS")
    expect(visibleLogs(typing).map((l) => l.message)).toEqual(["POST /orders 500"])
    // While typing, letters are text, not commands.
    expect(typing.quit).toBe(false)
    expect(typing.selected).toBe(0)
    const kept = run([key({ _tag: "Enter" })], typing).state
    expect(kept.prompt._tag).toBe("None")
    expect(kept.filter).toBe("ordeRS")
    const cleared = run([key({ _tag: "Escape" })], kept).state
    expect(cleared.filter).toBe("")
    expect(visibleLogs(cleared)).toHaveLength(2)
    const escWhileTyping = run([char("/"), ...typed("x"), key({ _tag: "Escape" })], withLines).state
    expect(escWhileTyping.filter).toBe("")
    expect(escWhileTyping.prompt._tag).toBe("None")
  })

  it("asks before restart, reload, stop and start, and acts only on y", () => {
    for (const [k, action] of [
      ["r", "restart"],
      ["R", "reload"],
      ["s", "stop"],
      ["S", "start"]
    ] as const) {
      const asked = run([char(k)], listed.state)
      expect(asked.state.prompt).toEqual({ _tag: "Confirm", action, app: "api", instances: 1 })
      expect(asked.commands).toEqual([])
      const yes = run([char("y")], asked.state)
      expect(yes.commands).toEqual([{ _tag: "Act", action, app: "api" }])
      expect(yes.state.prompt._tag).toBe("None")
      const no = run([char("n")], asked.state)
      expect(no.commands).toEqual([])
      expect(no.state.notice).toEqual({ text: `${action} cancelled`, tone: "info" })
      // q answers the question (no), it does not quit.
      expect(run([char("q")], asked.state).state.quit).toBe(false)
    }
  })

  it("counts an app's instances in the confirmation", () => {
    const cluster = run([
      { _tag: "List", rows: [row({ id: 0, name: "web" }), row({ id: 1, name: "web", instance: 1 })] },
      char("r")
    ]).state
    expect(cluster.prompt).toEqual({ _tag: "Confirm", action: "restart", app: "web", instances: 2 })
  })

  it("quits on q and on Ctrl-C, even while typing a filter", () => {
    expect(run([char("q")], listed.state).state.quit).toBe(true)
    expect(run([char("/"), key({ _tag: "CtrlC" })], listed.state).state.quit).toBe(true)
    expect(run([char("/"), char("q")], listed.state).state.quit).toBe(false)
  })

  it("keeps the selection on the same row when the list changes, or takes the row at its place when it is gone", () => {
    const onWorker = run([char("j")], listed.state).state
    const reordered = run(
      [{ _tag: "List", rows: [rows[2]!, rows[1]!, rows[0]!, row({ id: 3, name: "new" })] }],
      onWorker
    )
    expect(reordered.state.selected).toBe(1)
    expect(reordered.commands).toEqual([])
    const gone = run([{ _tag: "List", rows: [rows[0]!, rows[2]!] }], onWorker)
    expect(gone.state.selected).toBe(2)
    expect(gone.commands).toEqual([{ _tag: "Follow", id: 2 }])
    const empty = run([{ _tag: "List", rows: [] }], onWorker)
    expect(empty.state.selected).toBe(null)
  })

  it("updates status and figures from the feed, and remembers exits", () => {
    const state = run(
      [
        { _tag: "Status", id: 1, status: "restarting", pid: null, exit: { code: 3, signal: null }, at: 1000 },
        {
          _tag: "Metrics",
          at: 2000,
          processes: [{ id: 0, cpu_usage: 55, memory_usage: 123, uptime: "0h 0m 9s", restarts: 4 }]
        }
      ],
      listed.state
    ).state
    expect(state.rows[1]).toMatchObject({ status: "restarting", pid: null })
    expect(lastExitOf(state, 1)).toEqual({ code: 3, signal: null, at: 1000 })
    expect(lastExitOf(state, 0)).toBe(null)
    expect(state.rows[0]).toMatchObject({ cpu_usage: 55, memory_usage: 123, uptime: "0h 0m 9s", restarts: 4 })
    // A status change of the selected row reads its detail again.
    expect(
      run([{ _tag: "Status", id: 0, status: "online", pid: 7, exit: null, at: 1 }], listed.state).commands
    ).toEqual([{ _tag: "FetchDetail", id: 0 }])
  })

  it("takes the last exit from the daemon's detail when the feed has not seen one", () => {
    const state = run(
      [{ _tag: "Detail", detail: detail(rows[0]!, { last_exit: { code: null, signal: "SIGKILL", at: null } }) }],
      listed.state
    ).state
    expect(lastExitOf(state, 0)).toEqual({ code: null, signal: "SIGKILL", at: null })
    // The detail of a row no longer selected is dropped.
    expect(run([{ _tag: "Detail", detail: detail(rows[1]!) }], listed.state).state.detail).toBe(null)
  })

  it("keeps the last 5 minutes of samples per row, seeded with the daemon's last minute", () => {
    let state = listed.state
    for (let i = 0; i < HISTORY_CAPACITY + 20; i++) {
      state = reduce(state, {
        _tag: "Metrics",
        at: 100_000 + i * 1000,
        processes: [{ id: 0, cpu_usage: i, memory_usage: i, uptime: "", restarts: 0 }]
      }).state
    }
    const kept = ringItems(state.history[0]!)
    expect(kept).toHaveLength(HISTORY_CAPACITY)
    expect(kept[0]!.cpu).toBe(20)
    expect(kept.at(-1)!.cpu).toBe(HISTORY_CAPACITY + 19)

    const fresh = run(
      [
        { _tag: "Metrics", at: 10_000, processes: [{ id: 1, cpu_usage: 5, memory_usage: 50, uptime: "", restarts: 0 }] }
      ],
      listed.state
    ).state
    const seeded = run(
      [{ _tag: "History", id: 1, samples: [8_000, 9_000, 10_000].map((at) => ({ at, cpu: at / 1000, memory: 0 })) }],
      fresh
    ).state
    expect(ringItems(seeded.history[1]!).map((s) => s.at)).toEqual([8_000, 9_000, 10_000])
    expect(ringItems(seeded.history[1]!).map((s) => s.cpu)).toEqual([8, 9, 5])
  })

  it("scrolls the log pane back with PageUp and stays on the lines it shows as new ones come", () => {
    let state = listed.state
    for (let i = 0; i < 30; i++) state = reduce(state, { _tag: "Log", id: 0, lines: [line(`l${i}`)] }).state
    state = run([key({ _tag: "PageUp" })], state).state
    expect(state.logScroll).toBe(10)
    state = run([{ _tag: "Log", id: 0, lines: [line("newer")] }], state).state
    expect(state.logScroll).toBe(11)
    expect(run([char("f")], state).state.logScroll).toBe(0)
    expect(run([key({ _tag: "PageDown" }), key({ _tag: "PageDown" })], state).state.logScroll).toBe(0)
  })

  it("reads everything again after the connection comes back", () => {
    const down = run([{ _tag: "Connection", connection: { _tag: "Down", reason: "daemon unreachable" } }], listed.state)
    expect(down.commands).toEqual([])
    const back = run([{ _tag: "Connection", connection: { _tag: "Live" } }], down.state)
    expect(back.commands).toEqual([{ _tag: "Follow", id: 0 }])
  })
})

describe("monit's shell", () => {
  it("joins log lines of one row that arrived together into one event, keeping their order and everything else", () => {
    const l = (message: string) => ({ timestamp: null, stream: "out" as const, level: "info" as const, message })
    expect(
      joinLogEvents([
        { _tag: "Log", id: 0, lines: [l("a")] },
        { _tag: "Log", id: 0, lines: [l("b"), l("c")] },
        { _tag: "Tick" },
        { _tag: "Log", id: 0, lines: [l("d")] },
        { _tag: "Log", id: 1, lines: [l("e")] },
        { _tag: "Resize" }
      ])
    ).toEqual([
      { _tag: "Log", id: 0, lines: [l("a"), l("b"), l("c")] },
      { _tag: "Tick" },
      { _tag: "Log", id: 0, lines: [l("d")] },
      { _tag: "Log", id: 1, lines: [l("e")] },
      { _tag: "Resize" }
    ])
  })
})
