/**
 * The action buttons (start, stop, restart, reload, delete) and what they do: delete asks first;
 * each shows its progress and the API's error message in the status line. With the read-only key
 * they are disabled, with a tooltip saying why.
 */
import { type Action, ApiError, api } from "./api"
import { h } from "./dom"
import { state } from "./live"
import { READ_ONLY_REASON } from "./readOnlyReason"

export const ACTIONS: ReadonlyArray<{ readonly action: Action; readonly label: string; readonly icon: string }> = [
  { action: "start", label: "Start", icon: "▶" },
  { action: "stop", label: "Stop", icon: "■" },
  { action: "restart", label: "Restart", icon: "↻" },
  { action: "reload", label: "Reload", icon: "⟳" },
  { action: "delete", label: "Delete", icon: "✕" }
]

let statusLine: HTMLElement | null = null
export const statusElement = (): HTMLElement => {
  statusLine ??= h("p", { class: "status-line", role: "status", "aria-live": "polite", id: "status-line" })
  return statusLine
}
/** Empties the status line: a new screen does not show the last screen's outcome (main.ts). */
export const clearStatus = (): void => {
  if (statusLine === null) return
  statusLine.textContent = ""
  statusLine.className = "status-line"
}
const say = (text: string, kind: "progress" | "ok" | "error") => {
  const line = statusElement()
  line.textContent = text
  line.className = `status-line ${kind}`
}

const nameOf = (id: number) => {
  const row = state.rows.get(id)
  return row === undefined ? `id ${id}` : `${row.name}${row.instance > 0 ? `:${row.instance}` : ""}`
}

/** Runs `action` on every id (one request each, side by side); reports progress, then the outcome. */
export const runAction = async (action: Action, ids: ReadonlyArray<number>): Promise<boolean> => {
  if (ids.length === 0) {
    say(
      `Nothing selected: tick the rows to ${action} (or the box in the title row for every shown row), then press ${action} again.`,
      "error"
    )
    return false
  }
  const names = ids.map(nameOf).join(", ")
  if (
    action === "delete" &&
    !window.confirm(
      `Delete ${names}? The process${ids.length > 1 ? "es stop and their rows are" : " stops and its row is"} removed.`
    )
  ) {
    say(`delete ${names}: cancelled`, "progress")
    return false
  }
  say(`${action} ${names}…`, "progress")
  const results = await Promise.allSettled(ids.map((id) => api.action(id, action)))
  // The API's suggestions name CLI commands (`pmfx restart 2`); here the next step is a button.
  const hint = (reason: unknown) =>
    reason instanceof ApiError && reason.code === "PROCESS_ALREADY_RUNNING" ? " (Restart ↻ restarts it)" : ""
  const failures = results.flatMap((result, i) =>
    result.status === "rejected"
      ? [
          `${nameOf(ids[i]!)}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}${hint(result.reason)}`
        ]
      : []
  )
  if (failures.length > 0) say(`${action} failed — ${failures.join("; ")}`, "error")
  else say(`${action} ${names}: done`, "ok")
  return failures.length === 0
}

/** One button per action for `ids()` (a row, or the current selection). */
export const actionButtons = (ids: () => ReadonlyArray<number>, compact: boolean): HTMLElement => {
  const group = h("span", { class: "actions", role: "group", "aria-label": "actions" })
  for (const { action, label, icon } of ACTIONS) {
    const button = h(
      "button",
      { type: "button", class: `action action-${action}`, "data-action": action, "aria-label": label },
      compact ? icon : label
    )
    button.addEventListener("click", () => {
      button.setAttribute("aria-busy", "true")
      void runAction(action, ids()).finally(() => button.removeAttribute("aria-busy"))
    })
    group.appendChild(button)
  }
  applyReadOnly(group)
  return group
}

/** Disables (or enables) the action buttons under `root` according to the key's role. */
export const applyReadOnly = (root: ParentNode): void => {
  for (const button of root.querySelectorAll<HTMLButtonElement>("button.action")) {
    button.disabled = state.readOnly
    button.title = state.readOnly ? READ_ONLY_REASON : (button.getAttribute("aria-label") ?? "")
  }
}
