/**
 * The dashboard's entry (docs/dashboard.md). Finds out whether the listener wants a key (an
 * unauthenticated `GET /api/status` answers 401), asks for one if so, proves it on `/ws`, and
 * routes between the process table (`#/`), a process (`#/process/<id>`) and the system panel
 * (`#/system`). The key lives in this tab's sessionStorage only (docs/decisions.md): never in a
 * URL, a cookie or a log.
 */
import "./style.css"
import { clearStatus } from "./actions"
import { setApiKey, api } from "./api"
import { h, replaceChildren } from "./dom"
import { connect, disconnect, state } from "./live"
import { renderProcessPage } from "./processPage"
import { renderSystemPage } from "./systemPage"
import { renderTable } from "./table"

const KEY_ITEM = "pmfx.apiKey"
const app = document.getElementById("app")!
const main = h("main", { id: "main", tabindex: -1 })
const connection = h("span", { class: "connection", id: "connection", role: "status" }, "connecting…")
const roleBadge = h("span", { class: "role", id: "role" })
const signOut = h("button", { type: "button", id: "sign-out", hidden: true }, "Sign out")
let teardown: (() => void) | null = null

const storedKey = (): string | null => sessionStorage.getItem(KEY_ITEM)

const route = () => {
  teardown?.()
  clearStatus()
  const hash = location.hash.replace(/^#/, "") || "/"
  const process = /^\/process\/(\d+)$/.exec(hash)
  for (const link of app.querySelectorAll("nav a"))
    link.toggleAttribute("aria-current", link.getAttribute("href") === `#${hash.startsWith("/process") ? "/" : hash}`)
  if (process !== null) teardown = renderProcessPage(main, Number(process[1]))
  else if (hash === "/system") teardown = renderSystemPage(main)
  else teardown = renderTable(main)
}

const showShell = () => {
  replaceChildren(
    app,
    h("a", { class: "skip", href: "#main" }, "Skip to content"),
    h(
      "header",
      {},
      h("strong", { class: "brand" }, "pmfx"),
      h(
        "nav",
        { "aria-label": "Sections" },
        h("a", { href: "#/" }, "Processes"),
        h("a", { href: "#/system" }, "System")
      ),
      roleBadge,
      connection,
      signOut
    ),
    main
  )
  window.addEventListener("hashchange", route)
  route()
}

const showSignIn = (message: string | null) => {
  disconnect()
  teardown?.()
  teardown = null
  window.removeEventListener("hashchange", route)
  const input = h("input", {
    type: "password",
    id: "api-key",
    name: "key",
    autocomplete: "current-password",
    required: true,
    "aria-describedby": "sign-in-help"
  })
  const form = h(
    "form",
    { class: "sign-in", id: "sign-in" },
    h("h1", {}, "pmfx"),
    h("label", { for: "api-key" }, "API key"),
    input,
    h(
      "p",
      { id: "sign-in-help" },
      "This daemon needs an API key (pmfx web --api-key). A read-only key shows everything but cannot change processes."
    ),
    message === null ? null : h("p", { class: "error", role: "alert", id: "sign-in-error" }, message),
    h("button", { type: "submit" }, "Sign in")
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    start(input.value.trim())
  })
  replaceChildren(app, h("main", {}, form))
  input.focus()
}

/** Connects with `key` (null: the listener needs none) and shows the dashboard once the feed flows. */
const start = (key: string | null) => {
  setApiKey(key)
  let shown = false
  connect(key, {
    refused: (message) => {
      sessionStorage.removeItem(KEY_ITEM)
      setApiKey(null)
      // The daemon's reason without its hint for WebSocket programmers (`send {"type":"auth"…}`),
      // which a person at the sign-in form cannot act on; then what to do.
      showSignIn(
        `${message.replace(/:.*$/s, "")}. Enter the key given to pmfx web (--api-key or PMFX_API_KEY; --read-only-api-key to only watch).`
      )
    },
    status: (connected) => {
      if (connected && !shown) {
        shown = true
        if (key !== null) sessionStorage.setItem(KEY_ITEM, key)
        showShell()
      }
      connection.textContent = connected ? "live" : "reconnecting…"
      connection.className = `connection ${connected ? "up" : "down"}`
      roleBadge.textContent = state.readOnly ? "read-only key: actions disabled" : ""
      signOut.hidden = key === null
    }
  })
}

signOut.addEventListener("click", () => {
  sessionStorage.removeItem(KEY_ITEM)
  showSignIn(null)
})

const boot = async () => {
  setApiKey(storedKey())
  const status = await api.probe().catch(() => 0)
  if (status === 401) {
    const key = storedKey()
    return key === null ? showSignIn(null) : showSignIn("Your saved key was refused: enter it again.")
  }
  start(storedKey())
}

void boot()
