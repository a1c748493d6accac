/**
 * The process table: every row live from `/ws`, sortable by any column, filtered by a text box,
 * optionally grouped by namespace; a checkbox per row feeds the selection's action buttons.
 * Rows are kept as elements and updated in place, so focus and selection survive each sample.
 */
import { actionButtons, applyReadOnly, statusElement } from "./actions"
import { h, replaceChildren } from "./dom"
import { onMessage, type Row, state } from "./live"
import { uptimeSeconds } from "../shared/uptime"
import { cpuText, healthText, memoryText, uptimeText } from "./rowText"

type Column = {
  readonly key: keyof Row
  readonly label: string
  readonly show: (row: Row) => string
  readonly numeric?: boolean
}

const COLUMNS: ReadonlyArray<Column> = [
  { key: "name", label: "Name", show: (r) => r.name },
  { key: "namespace", label: "Namespace", show: (r) => r.namespace },
  { key: "instance", label: "Inst.", show: (r) => String(r.instance), numeric: true },
  { key: "status", label: "Status", show: (r) => r.status },
  { key: "pid", label: "PID", show: (r) => (r.pid === null ? "–" : String(r.pid)), numeric: true },
  { key: "port", label: "Port", show: (r) => r.port ?? "–" },
  // As `pmfx list` shows them (cli/processTable.ts): without a pid (stopped, errored) CPU is 0.0%
  // (the daemon zeroes it), memory and uptime are "–"; no health check is "–" too.
  { key: "cpu_usage", label: "CPU", show: (r) => cpuText(r), numeric: true },
  { key: "memory_usage", label: "Memory", show: (r) => memoryText(r), numeric: true },
  { key: "uptime", label: "Uptime", show: (r) => uptimeText(r) },
  { key: "restarts", label: "Restarts", show: (r) => String(r.restarts), numeric: true },
  { key: "health_status", label: "Health", show: (r) => healthText(r) }
]

export const renderTable = (root: HTMLElement): (() => void) => {
  let sortKey: keyof Row = "id"
  let ascending = true
  let grouped = false
  const selected = new Set<number>()
  const groupRows = new Map<string, HTMLTableRowElement>()
  const elements = new Map<
    number,
    { tr: HTMLTableRowElement; cells: Array<HTMLTableCellElement>; box: HTMLInputElement }
  >()

  const filter = h("input", {
    type: "search",
    id: "filter",
    placeholder: "Filter by name, namespace or status",
    "aria-label": "Filter processes"
  })
  const group = h("input", { type: "checkbox", id: "group" })
  const count = h("span", { class: "count" })
  const bulk = actionButtons(() => [...selected].filter((id) => state.rows.has(id)).sort((a, b) => a - b), false)
  bulk.classList.add("bulk")
  const tbody = h("tbody")
  const allBox = h("input", { type: "checkbox", "aria-label": "Select every shown process" })
  const headers = COLUMNS.map((column) => {
    const button = h("button", { type: "button", class: "sort" }, column.label)
    button.addEventListener("click", () => {
      ascending = sortKey === column.key ? !ascending : true
      sortKey = column.key
      update()
    })
    return h("th", { scope: "col", "data-key": String(column.key) }, button)
  })
  const noMatch = h("p", { class: "empty", id: "no-match", hidden: true })
  const empty = h("p", { class: "empty" }, "No processes yet. Start one with ", h("code", {}, "pmfx start app.js"), ".")

  replaceChildren(
    root,
    h("div", { class: "toolbar" }, filter, h("label", { class: "check" }, group, " Group by namespace"), count),
    h("div", { class: "toolbar" }, h("span", {}, "Selection:"), bulk),
    statusElement(),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { id: "processes" },
        h("thead", {}, h("tr", {}, h("th", {}, allBox), ...headers, h("th", {}, "Actions"))),
        tbody
      )
    ),
    noMatch,
    empty
  )

  const shown = (): Array<Row> => {
    const needle = filter.value.trim().toLowerCase()
    const rows = [...state.rows.values()].filter(
      (r) => needle === "" || `${r.name} ${r.namespace} ${r.status}`.toLowerCase().includes(needle)
    )
    const value = (r: Row): string | number => {
      const v = sortKey === "uptime" ? uptimeSeconds(r.uptime) : r[sortKey]
      return typeof v === "number" ? v : String(v ?? "")
    }
    rows.sort((a, b) => {
      if (grouped && a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1
      const x = value(a)
      const y = value(b)
      const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))
      return (ascending ? order : -order) || a.id - b.id
    })
    return rows
  }

  const elementFor = (row: Row) => {
    let found = elements.get(row.id)
    if (found !== undefined) return found
    const box = h("input", { type: "checkbox", "aria-label": `Select ${row.name} ${row.instance}` })
    box.addEventListener("change", () => {
      if (box.checked) selected.add(row.id)
      else selected.delete(row.id)
      count.textContent = counter()
    })
    const cells = COLUMNS.map((column) =>
      column.key === "name"
        ? h("td", {}, h("a", { href: `#/process/${row.id}` }))
        : h("td", { class: column.numeric === true ? "num" : "" })
    )
    const tr = h(
      "tr",
      { "data-id": row.id },
      h("td", {}, box),
      ...cells,
      h(
        "td",
        {},
        actionButtons(() => [row.id], true)
      )
    )
    found = { tr, cells, box }
    elements.set(row.id, found)
    return found
  }

  let shownCount = 0
  const counter = () =>
    `${shownCount < state.rows.size ? `${shownCount} of ` : ""}${state.rows.size} process${state.rows.size === 1 ? "" : "es"}${selected.size > 0 ? `, ${selected.size} selected` : ""}`

  const update = () => {
    for (const id of elements.keys()) {
      if (!state.rows.has(id)) {
        elements.delete(id)
        selected.delete(id)
      }
    }
    const rows = shown()
    shownCount = rows.length
    const wanted: Array<HTMLTableRowElement> = []
    let namespace: string | null = null
    for (const row of rows) {
      if (grouped && row.namespace !== namespace) {
        namespace = row.namespace
        let header = groupRows.get(row.namespace)
        if (header === undefined) {
          header = h(
            "tr",
            { class: "group" },
            h("th", { colspan: COLUMNS.length + 2, scope: "rowgroup" }, `Namespace ${row.namespace}`)
          )
          groupRows.set(row.namespace, header)
        }
        wanted.push(header)
      }
      const { tr, cells } = elementFor(row)
      COLUMNS.forEach((column, i) => {
        const cell = cells[i]!
        const text = column.show(row)
        const target = column.key === "name" ? cell.firstElementChild! : cell
        if (target.textContent !== text) target.textContent = text
      })
      cells[3]!.className = `status status-${row.status}`
      cells[10]!.className = `health health-${row.health_status}`
      wanted.push(tr)
    }
    const current = [...tbody.children]
    if (current.length !== wanted.length || current.some((tr, i) => tr !== wanted[i])) {
      tbody.replaceChildren(...wanted)
    }
    for (const th of headers) {
      const key = th.getAttribute("data-key")
      th.setAttribute("aria-sort", key === sortKey ? (ascending ? "ascending" : "descending") : "none")
    }
    count.textContent = counter()
    empty.hidden = state.rows.size > 0
    noMatch.hidden = state.rows.size === 0 || rows.length > 0
    noMatch.textContent = `No process matches “${filter.value.trim()}”: clear the filter to see all ${state.rows.size}.`
    applyReadOnly(root)
  }

  filter.addEventListener("input", update)
  group.addEventListener("change", () => {
    grouped = group.checked
    update()
  })
  allBox.addEventListener("change", () => {
    for (const row of shown()) {
      const { box } = elementFor(row)
      box.checked = allBox.checked
      if (allBox.checked) selected.add(row.id)
      else selected.delete(row.id)
    }
    count.textContent = counter()
  })
  let pending = false
  const schedule = () => {
    if (pending) return
    pending = true
    requestAnimationFrame(() => {
      pending = false
      update()
    })
  }
  update()
  return onMessage((message) => {
    if (
      message.type === "process_list" ||
      message.type === "process_status" ||
      message.type === "process_metrics" ||
      message.type === "auth"
    )
      schedule()
  })
}
