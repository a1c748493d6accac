/**
 * The log viewer of a process page: the newest lines matching the filters (`GET …/logs`), then,
 * in follow mode, new lines as they come on `/ws` (checked against the same filters here).
 * "Download" saves exactly the lines shown.
 */
import type { LogEntry } from "../logs/LogEntry"
import { ApiError, api } from "./api"
import { h, replaceChildren } from "./dom"
import { type LogLine, onMessage, subscribeLogs } from "./live"

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"] as const
const MAX_SHOWN = 2000

type Shown = Pick<LogEntry, "timestamp" | "stream" | "level" | "message">

export const renderLogs = (root: HTMLElement, id: number, name: string): (() => void) => {
  const stream = h(
    "select",
    { id: "log-stream", "aria-label": "Stream" },
    h("option", { value: "all" }, "out + err"),
    h("option", { value: "out" }, "out"),
    h("option", { value: "err" }, "err")
  )
  const level = h(
    "select",
    { id: "log-level", "aria-label": "Level" },
    h("option", { value: "" }, "any level"),
    ...LEVELS.map((l) => h("option", { value: l }, `${l} and worse`))
  )
  const grep = h("input", {
    type: "search",
    id: "log-grep",
    placeholder: "grep (regular expression)",
    "aria-label": "Search the lines"
  })
  const since = h("input", {
    type: "text",
    id: "log-since",
    placeholder: "since (10m, 2026-11-26T03:00Z)",
    "aria-label": "Since"
  })
  const until = h("input", { type: "text", id: "log-until", placeholder: "until", "aria-label": "Until" })
  const follow = h("input", { type: "checkbox", id: "log-follow", checked: true })
  const download = h("button", { type: "button", id: "log-download" }, "Download")
  const status = h("p", { class: "log-status", role: "status" })
  const output = h("pre", { id: "log-lines", tabindex: 0, "aria-label": `Log lines of ${name}` })
  let lines: Array<Shown> = []
  let generation = 0

  replaceChildren(
    root,
    h(
      "form",
      { class: "toolbar log-filters", role: "search" },
      stream,
      level,
      grep,
      since,
      until,
      h("label", { class: "check" }, follow, " Follow"),
      h("button", { type: "submit" }, "Apply"),
      download
    ),
    status,
    output
  )

  const severity = (l: string) => LEVELS.indexOf(l as (typeof LEVELS)[number])
  const matcher = (): ((line: Shown) => boolean) => {
    let pattern: RegExp | null = null
    const text = grep.value.trim()
    if (text !== "") {
      const slashed = /^\/(.*)\/([a-z]*)$/.exec(text)
      try {
        pattern = slashed === null ? new RegExp(text) : new RegExp(slashed[1]!, slashed[2]!.replace(/[^ims]/g, ""))
      } catch {
        pattern = null
      }
    }
    return (line) =>
      (stream.value === "all" || line.stream === stream.value) &&
      (level.value === "" || severity(line.level) <= severity(level.value)) &&
      (pattern === null || pattern.test(line.message)) &&
      until.value.trim() === ""
  }
  let matches = matcher()

  const format = (line: Shown) => `${line.timestamp ?? "—"} ${line.stream} ${line.level.padEnd(5)} ${line.message}`
  const show = (added: ReadonlyArray<Shown>, reset: boolean) => {
    if (reset) output.textContent = ""
    lines = reset ? [...added] : [...lines, ...added]
    const atBottom = output.scrollTop + output.clientHeight >= output.scrollHeight - 8
    if (lines.length > MAX_SHOWN) {
      lines = lines.slice(-MAX_SHOWN)
      output.textContent = lines.map(format).join("\n") + "\n"
    } else {
      for (const line of added)
        output.appendChild(
          h("span", { class: `log-line level-${line.level} stream-${line.stream}` }, format(line) + "\n")
        )
    }
    if (atBottom || reset) output.scrollTop = output.scrollHeight
    status.textContent = `${lines.length} line${lines.length === 1 ? "" : "s"}${follow.checked && until.value.trim() === "" ? ", following" : ""}`
  }

  const load = async () => {
    const mine = ++generation
    matches = matcher()
    // With an end to the time range there is nothing new to follow: say so on the checkbox.
    follow.disabled = until.value.trim() !== ""
    follow.parentElement!.title = follow.disabled ? 'An "until" time is set: clear it to follow new lines' : ""
    const query: Record<string, string> = { lines: "500", stream: stream.value }
    if (level.value !== "") query["level"] = level.value
    if (grep.value.trim() !== "") query["grep"] = grep.value.trim()
    if (since.value.trim() !== "") query["since"] = since.value.trim()
    if (until.value.trim() !== "") query["until"] = until.value.trim()
    status.className = "log-status"
    status.textContent = "loading…"
    try {
      const answer = await api.logs(id, query)
      if (mine === generation) show(answer.entries, true)
    } catch (error) {
      if (mine !== generation) return
      // Show no lines rather than the previous filter's, and follow nothing, so the error stays
      // on screen (a followed line would replace it) until the filters are fixed and applied.
      lines = []
      output.textContent = ""
      matches = () => false
      subscribeLogs(null)
      const suggestion = error instanceof ApiError && error.suggestion !== null ? ` — ${error.suggestion}` : ""
      status.className = "log-status error"
      status.textContent = `Could not read the logs: ${error instanceof Error ? error.message : String(error)}${suggestion}`
      return
    }
    subscribeLogs(follow.checked ? [id] : null)
  }

  root.querySelector("form")!.addEventListener("submit", (event) => {
    event.preventDefault()
    void load()
  })
  for (const control of [stream, level, follow]) control.addEventListener("change", () => void load())
  download.addEventListener("click", () => {
    const blob = new Blob([lines.map(format).join("\n") + "\n"], { type: "text/plain" })
    const link = h("a", { href: URL.createObjectURL(blob), download: `${name}-${id}-logs.txt` })
    link.click()
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
  })
  const stop = onMessage((message) => {
    if (message.type !== "log" || message.data.id !== id || !follow.checked) return
    const line: LogLine = message.data
    if (matches(line)) show([line], false)
  })
  void load()
  return () => {
    stop()
    subscribeLogs(null)
  }
}
