/**
 * The web dashboard in a real browser (docs/dashboard.md): headless Chromium (Debian's package)
 * driven by playwright-core. Sign-in with a good, a wrong and a read-only key; the table following
 * what the CLI does; every action button; the process page's chart and logs; a page of another
 * origin refused. Skipped, with one line saying so, when no Chromium is installed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { Browser, Page } from "playwright-core"
import { READ_ONLY_REASON } from "../../src/ui/readOnlyReason"
import type { Sandbox } from "../support/cli"
import { crashyWithWebhooks } from "../support/crashyWithWebhooks"
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver"
import { freeListenerPort } from "../api/tcp"
import { chromiumPath, type Dashboard, launchBrowser, openDashboard, screenshot, tickerScript } from "./browser"

if (chromiumPath === undefined) console.log("browser tests skipped: no chromium (apt-get install chromium)")

const KEY = "dash-full-key-0123456789"
const RO_KEY = "dash-read-key-9876543210"
const WAIT = { timeout: 30_000 }

const sandboxes: Array<Sandbox> = []
const receivers: Array<WebhookReceiver> = []
let browser: Browser
/** One keyless dashboard shared by the tests that do not need keys (each uses its own apps). */
let open: Dashboard

const dashboard = async (args: ReadonlyArray<string> = []) => {
  const made = await openDashboard(args)
  sandboxes.push(made.sandbox)
  return made
}

const cli = (sandbox: Sandbox, ...args: Array<string>) => {
  const result = sandbox.pmfx(args)
  expect(result.code, `pmfx ${args.join(" ")}: ${result.stderr}`).toBe(0)
  return result
}

const newPage = async (width = 1280, height = 800): Promise<Page> => {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: "light" })
  page.setDefaultTimeout(30_000)
  return page
}

/** The table row of the app `name` (its name link reads exactly that). */
const row = (page: Page, name: string) =>
  page.locator("#processes tbody tr[data-id]").filter({ has: page.locator("a", { hasText: new RegExp(`^${name}$`) }) })
const cell = (page: Page, name: string, index: number) => row(page, name).locator("td").nth(index)
/** Column indexes: 0 is the checkbox. */
const STATUS = 4
const CPU = 7
const MEMORY = 8
const UPTIME = 9
const RESTARTS = 10
const HEALTH = 11

describe.skipIf(chromiumPath === undefined)("the dashboard in Chromium", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    browser = await launchBrowser()
    open = await dashboard()
  })
  afterAll(async () => {
    await browser?.close()
    for (const sandbox of sandboxes) sandbox.cleanup()
    // After the daemons: nothing posts to a closing receiver.
    for (const receiver of receivers) await receiver.close()
  })

  it("asks for the key, refuses a wrong one, and disables the actions of the read-only key", async () => {
    const keyed = await dashboard(["--api-key", KEY, "--read-only-api-key", RO_KEY])
    cli(keyed.sandbox, "start", tickerScript(keyed.sandbox, "alpha"), "--name", "alpha")
    const page = await newPage()
    const urls: Array<string> = []
    page.on("request", (request) => urls.push(request.url()))
    await page.goto(keyed.url)
    await page.locator("#sign-in").waitFor()

    await page.fill("#api-key", "not-the-key")
    await page.press("#api-key", "Enter")
    await expect.poll(() => page.locator("#sign-in-error").textContent(), WAIT).toContain("Invalid or missing API key")

    await page.fill("#api-key", RO_KEY)
    await page.press("#api-key", "Enter")
    await row(page, "alpha").waitFor()
    const stop = row(page, "alpha").locator("button.action-stop")
    expect(await stop.isDisabled()).toBe(true)
    expect(await stop.getAttribute("title")).toBe(READ_ONLY_REASON)
    expect(await page.locator("#role").textContent()).toContain("read-only")
    // The process page reads fine with it, and its buttons are disabled too.
    await row(page, "alpha").locator("a").click()
    await page.locator("#config dd").first().waitFor()
    expect(await page.locator("main button.action-restart").isDisabled()).toBe(true)

    await page.click("#sign-out")
    await page.fill("#api-key", KEY)
    await page.press("#api-key", "Enter")
    await page.goto(`${keyed.url}#/`)
    await row(page, "alpha").waitFor()
    expect(await row(page, "alpha").locator("button.action-stop").isDisabled()).toBe(false)

    // The key never travels in a URL or a cookie, and a reload of the tab keeps the session.
    for (const url of urls) expect(url).not.toMatch(/dash-(full|read)-key/)
    expect(await page.evaluate("document.cookie")).toBe("")
    await page.reload()
    await row(page, "alpha").waitFor()
    // A browser asking for / gets the dashboard too; JSON clients keep the service record.
    await page.goto(`http://localhost:${keyed.port}/`)
    await page.locator("#processes").waitFor()
    await page.close()
  })

  it("follows the CLI live: a start, a crash and its restarts, a stop and a delete", async () => {
    const { sandbox, url } = open
    const page = await newPage()
    await page.goto(url)
    await page.locator("#processes").waitFor()
    cli(sandbox, "start", tickerScript(sandbox, "beta"), "--name", "beta")
    await expect.poll(() => cell(page, "beta", STATUS).textContent(), WAIT).toBe("online")
    // Written as `pmfx list` writes them: `12s` (no `0h 0m`), and no health check is a dash.
    await expect.poll(() => cell(page, "beta", UPTIME).textContent(), WAIT).toMatch(/^(\d+m )?\d+s$/)
    expect(await cell(page, "beta", HEALTH).textContent()).toBe("–")

    const crashy = sandbox.write("crashy.js", "setTimeout(() => process.exit(3), 700)\n")
    cli(sandbox, "start", crashy, "--name", "crashy", "--restart-delay", "500")
    await expect
      .poll(async () => Number(await cell(page, "crashy", RESTARTS).textContent()), WAIT)
      .toBeGreaterThanOrEqual(2)

    cli(sandbox, "stop", "beta")
    await expect.poll(() => cell(page, "beta", STATUS).textContent(), WAIT).toBe("stopped")
    // No pid, no figures: not the last sample from before the stop.
    await expect.poll(() => cell(page, "beta", MEMORY).textContent(), WAIT).toBe("–")
    // CPU as `pmfx list` shows a stopped process: 0.0% (the daemon zeroes it when the process ends).
    expect(await cell(page, "beta", CPU).textContent()).toBe("0.0%")
    expect(await cell(page, "beta", UPTIME).textContent()).toBe("–")
    cli(sandbox, "delete", "crashy")
    cli(sandbox, "delete", "beta")
    await expect.poll(() => page.locator("#processes tbody tr[data-id]").count(), WAIT).toBe(0)
    await page.close()
  })

  it("runs each action button, asks before deleting, and shows the API's error", async () => {
    const { sandbox, url } = open
    cli(sandbox, "start", tickerScript(sandbox, "gamma"), "--name", "gamma")
    cli(sandbox, "start", tickerScript(sandbox, "gamma2"), "--name", "gamma2")
    const page = await newPage()
    await page.goto(url)
    const status = page.locator("#status-line")
    const press = async (name: string, action: string) => row(page, name).locator(`button.action-${action}`).click()

    await expect.poll(() => cell(page, "gamma", STATUS).textContent(), WAIT).toBe("online")
    await press("gamma", "stop")
    await expect.poll(() => cell(page, "gamma", STATUS).textContent(), WAIT).toBe("stopped")
    await expect.poll(() => status.textContent(), WAIT).toBe("stop gamma: done")
    await press("gamma", "start")
    await expect.poll(() => cell(page, "gamma", STATUS).textContent(), WAIT).toBe("online")
    await press("gamma", "restart")
    await expect
      .poll(async () => Number(await cell(page, "gamma", RESTARTS).textContent()), WAIT)
      .toBeGreaterThanOrEqual(1)
    await press("gamma", "reload")
    await expect.poll(() => status.textContent(), WAIT).toBe("reload gamma: done")

    // A failure shows the API's own message.
    await press("gamma", "start")
    await expect.poll(() => status.getAttribute("class"), WAIT).toContain("error")
    expect(await status.textContent()).toMatch(/^start failed — gamma: .*already running \(Restart ↻ restarts it\)$/)

    // The selection's buttons with nothing ticked say what to do instead of doing nothing.
    await page.locator(".bulk button.action-stop").click()
    await expect.poll(() => status.textContent(), WAIT).toMatch(/^Nothing selected: tick the rows to stop/)

    // The selection: both rows stopped by one click.
    await row(page, "gamma2").locator("input[type=checkbox]").check()
    await row(page, "gamma").locator("input[type=checkbox]").check()
    await page.locator(".bulk button.action-stop").click()
    await expect
      .poll(
        async () => [await cell(page, "gamma", STATUS).textContent(), await cell(page, "gamma2", STATUS).textContent()],
        WAIT
      )
      .toEqual(["stopped", "stopped"])

    // Delete asks first: dismissed, nothing happens; accepted, the row goes.
    page.once("dialog", (dialog) => void dialog.dismiss())
    await press("gamma2", "delete")
    await expect.poll(() => status.textContent(), WAIT).toBe("delete gamma2: cancelled")
    expect(await row(page, "gamma2").count()).toBe(1)

    // A filter that hides every row says so, and the count says how many are shown.
    await page.fill("#filter", "no-such-app")
    await expect
      .poll(() => page.locator("#no-match").textContent(), WAIT)
      .toBe("No process matches “no-such-app”: clear the filter to see all 2.")
    expect(await page.locator(".count").textContent()).toBe("0 of 2 processes, 2 selected")
    await page.fill("#filter", "")
    page.once("dialog", (dialog) => void dialog.accept())
    await press("gamma2", "delete")
    await expect.poll(() => row(page, "gamma2").count(), WAIT).toBe(0)
    cli(sandbox, "delete", "gamma")
    await page.close()
  })

  it("shows a process: details with masked secrets, a chart with data, logs that follow and filter", async () => {
    const { sandbox, url } = open
    const script = tickerScript(sandbox, "delta", 250)
    cli(
      sandbox,
      "start",
      script,
      "--name",
      "delta",
      "--namespace",
      "shop",
      "--env",
      "API_TOKEN=s3cr3t-value",
      "--env",
      "MODE=demo"
    )
    cli(sandbox, "start", tickerScript(sandbox, "api"), "--name", "api", "--namespace", "shop")
    cli(sandbox, "start", tickerScript(sandbox, "worker"), "--name", "worker", "--namespace", "jobs", "-i", "2")
    const page = await newPage()
    await page.goto(url)
    await expect.poll(() => page.locator("#processes tbody tr[data-id] td.status-online").count(), WAIT).toBe(4)
    await page.locator("#group").check()
    await screenshot(page, "dashboard")

    await row(page, "delta").locator("a").click()
    await page.locator("#config dd").first().waitFor()
    expect(await page.locator("#env").textContent()).toContain("MODE")
    expect(await page.locator("#env").textContent()).not.toContain("s3cr3t-value")
    await expect
      .poll(async () => Number(await page.locator("#cpu-chart svg").getAttribute("data-points")), WAIT)
      .toBeGreaterThanOrEqual(3)
    expect(await page.locator("#memory-chart polyline").count()).toBe(1)

    // Following: new lines arrive without asking.
    const lines = page.locator("#log-lines .log-line")
    await expect.poll(() => lines.count(), WAIT).toBeGreaterThan(0)
    const before = await lines.count()
    await expect.poll(() => lines.count(), WAIT).toBeGreaterThan(before + 3)
    await screenshot(page, "process")

    // Filters: stderr only, then a grep; followed lines keep to them.
    await page.selectOption("#log-stream", "err")
    await expect.poll(async () => (await lines.allTextContents()).length, WAIT).toBeGreaterThan(0)
    await expect
      .poll(
        async () =>
          (await lines.allTextContents()).every((line) => line.includes(" err ") && line.includes("error: tick")),
        WAIT
      )
      .toBe(true)
    await page.selectOption("#log-stream", "all")
    await page.fill("#log-grep", "tick [0-9]*5$")
    await page.press("#log-grep", "Enter")
    await expect
      .poll(async () => {
        const shown = await lines.allTextContents()
        return shown.length > 0 && shown.every((line) => /tick \d*5\n?$/.test(line))
      }, WAIT)
      .toBe(true)
    // An invalid grep: the API's message and suggestion stay shown, with no stale lines under them.
    await page.fill("#log-grep", "(unclosed")
    await page.press("#log-grep", "Enter")
    await expect
      .poll(() => page.locator(".log-status").textContent(), WAIT)
      .toMatch(/^Could not read the logs: Invalid grep: .* — give a valid RE2/)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await page.locator(".log-status").textContent()).toMatch(/^Could not read the logs/)
    expect(await lines.count()).toBe(0)
    await page.fill("#log-grep", "tick [0-9]*5$")
    await page.press("#log-grep", "Enter")
    await expect.poll(async () => (await lines.count()) > 0, WAIT).toBe(true)
    const download = page.waitForEvent("download")
    await page.click("#log-download")
    const saved = await (await download).createReadStream()
    const chunks: Array<Buffer> = []
    for await (const chunk of saved) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    expect(text.trim().split("\n").length).toBeGreaterThan(0)
    expect(
      text
        .trim()
        .split("\n")
        .every((line) => /tick \d*5$/.test(line))
    ).toBe(true)
    await page.locator("#log-lines").scrollIntoViewIfNeeded()
    await screenshot(page, "logs")
    await page.close()
    cli(sandbox, "delete", "all")
  })

  it("shows the alerts and webhook deliveries from before the page opened, and live ones once each", async () => {
    const { sandbox, url, port } = await dashboard()
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    const closed = await freeListenerPort()
    const receiverPort = new URL(receiver.url).port
    const file = sandbox.write(
      "ecosystem.json",
      crashyWithWebhooks([
        `http://hook:pa55word@127.0.0.1:${receiverPort}/hook?sig=abc`,
        `http://127.0.0.1:${closed}/down`
      ])
    )
    cli(sandbox, "start", file)
    // Both outcomes are known (the dead target after its retries) before the page opens.
    const deliveries = async () =>
      (await (await fetch(`http://localhost:${port}/api/webhooks/deliveries`)).json()) as {
        deliveries: Array<{ outcome: string }>
      }
    await expect
      .poll(async () => (await deliveries()).deliveries.map((d) => d.outcome).sort(), WAIT)
      .toEqual(["delivered", "failed"])
    expect(receiver.bodies).toHaveLength(1)

    const page = await newPage()
    await page.goto(`${url}#/system`)
    const crashAlerts = page.locator("#alerts li.alert-process_crash")
    await page.locator("#alerts:not([aria-busy])").waitFor()
    expect(await crashAlerts.count()).toBe(1)
    expect(await crashAlerts.first().textContent()).toMatch(/crashy \(id \d+\) crashed: exited with code 1/)
    const ok = page.locator("#deliveries li.delivery-ok")
    const failed = page.locator("#deliveries li.delivery-failed")
    await expect.poll(() => ok.count(), WAIT).toBe(1)
    expect(await failed.count()).toBe(1)
    expect(await ok.locator(".url").textContent()).toBe(`http://***@127.0.0.1:${receiverPort}/hook?***`)
    expect(await ok.locator(".outcome").textContent()).toBe("delivered (HTTP 204)")
    expect(await failed.locator(".url").textContent()).toBe(`http://127.0.0.1:${closed}/down`)
    expect(await failed.locator(".outcome").textContent()).toMatch(/^failed: .*ECONNREFUSED/)
    expect(await failed.textContent()).toContain("4 attempts")
    expect(await page.locator("#deliveries").textContent()).not.toContain("pa55word")
    // Colored by outcome.
    const color = (locator: typeof ok) =>
      locator.locator(".outcome").evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).color)
    expect(await color(ok)).not.toBe(await color(failed))
    await screenshot(page, "system")

    // A crash while the page is open arrives on the feed; the deliveries follow without a reload.
    cli(sandbox, "restart", "crashy")
    await expect.poll(() => crashAlerts.count(), WAIT).toBe(2)
    await expect.poll(() => ok.count(), WAIT).toBe(2)
    // Back to the panel: the history now holds the live alert too, and it is listed once.
    await page.goto(`${url}#/`)
    await page.locator("#processes").waitFor()
    await page.goto(`${url}#/system`)
    await page.locator("#alerts:not([aria-busy])").waitFor()
    expect(await crashAlerts.count()).toBe(2)
    await page.locator("#deliveries:not([aria-busy])").waitFor()
    expect(await page.locator("#deliveries li.delivery-ok").count()).toBe(2)
    await page.close()
  })

  it("fits a phone-sized screen, long webhook URLs included, and reads the system panel", async () => {
    const { sandbox, url, port } = await dashboard()
    const receiver = await startWebhookReceiver()
    receivers.push(receiver)
    // Many short path segments: none is taken for a token, so the redacted URL stays this long.
    const longPath = Array.from({ length: 12 }, (_, i) => `path${i}segmentxx`).join("/")
    const file = sandbox.write(
      "ecosystem.json",
      crashyWithWebhooks([`http://127.0.0.1:${new URL(receiver.url).port}/${longPath}`])
    )
    cli(sandbox, "start", file)
    await expect
      .poll(async () => {
        const answer = (await (await fetch(`http://localhost:${port}/api/webhooks/deliveries`)).json()) as {
          deliveries: Array<unknown>
        }
        return answer.deliveries.length
      }, WAIT)
      .toBe(1)

    const page = await newPage(390, 844)
    await page.goto(`${url}#/system`)
    await expect.poll(() => page.locator("#host .card").count(), WAIT).toBe(3)
    await expect.poll(() => page.locator("#daemon .card").count(), WAIT).toBe(3)
    expect(await page.locator("#daemon").textContent()).toContain("0.1.0")
    const shownUrl = page.locator("#deliveries li.delivery-ok .url")
    await expect.poll(() => shownUrl.textContent(), WAIT).toContain(longPath)
    // The page itself never scrolls sideways (docs/dashboard.md, "Keyboard, phones").
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390)
    await page.goto(`${url}#/`)
    await page.locator("#processes").waitFor()
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390)
    await page.close()
  })

  it("ticks the daemon's uptime every second, written as `pmfx list` writes uptimes", async () => {
    const { url } = open
    const page = await newPage()
    // After its first answer /api/system answers nothing more: the uptime must move by itself.
    let answered = 0
    await page.route("**/api/system", async (route) => {
      if (answered++ === 0) await route.continue()
      else await route.abort()
    })
    await page.goto(`${url}#/system`)
    const uptime = page.locator("#daemon-uptime")
    await expect.poll(() => uptime.textContent(), WAIT).toMatch(/\d+s$/)
    const first = await uptime.textContent()
    await expect.poll(() => uptime.textContent(), WAIT).not.toBe(first)
    expect(answered).toBe(1)
    // `4m 19s`, never `0h 4m 19s` (src/shared/uptime.ts, as cli/processTable.ts prints it).
    const shown = (await uptime.textContent()) ?? ""
    expect(shown).toMatch(/^(?:[1-9]\d*h \d+m \d+s|[1-9]\d*m \d+s|\d+s)$/)
    await page.close()
  })

  it("refuses a page of another origin: it can neither drive the daemon nor read its feed", async () => {
    const { sandbox, port } = open
    cli(sandbox, "start", tickerScript(sandbox, "target"), "--name", "target")
    const otherPort = await freeListenerPort()
    const attack = `<!doctype html><script>
      window.result = { ws: "pending", fetch: "pending" };
      const ws = new WebSocket("ws://localhost:${port}/ws");
      ws.onopen = () => { window.result.ws = "open" };
      ws.onclose = (e) => { if (window.result.ws === "pending") window.result.ws = "refused" };
      fetch("http://localhost:${port}/api/processes/target/stop", { method: "POST", mode: "no-cors" })
        .then(() => { window.result.fetch = "sent" }, () => { window.result.fetch = "failed" });
    </script>`
    const server = http.createServer((_, response) =>
      response.writeHead(200, { "content-type": "text/html" }).end(attack)
    )
    await new Promise<void>((resolve) => server.listen(otherPort, "127.0.0.1", resolve))
    try {
      const page = await newPage()
      await page.goto(`http://127.0.0.1:${otherPort}/`)
      await expect
        .poll(() => page.evaluate("window.result"), WAIT)
        .toEqual({ ws: "refused", fetch: expect.stringMatching(/sent|failed/) })
      await page.close()
    } finally {
      server.close()
    }
    const listed = JSON.parse(cli(sandbox, "jlist").stdout) as Array<{ name: string; status: string }>
    expect(listed.find((p) => p.name === "target")?.status).toBe("online")
    cli(sandbox, "delete", "target")
  })
})
