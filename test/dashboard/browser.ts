/**
 * The dashboard's browser tests' set-up: Debian's Chromium (apt-get install chromium) driven by
 * playwright-core, one browser per test file; a CLI sandbox whose daemon serves the dashboard on a
 * free port; screenshots for the docs.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { makeSandbox, type Sandbox } from "../support/cli"
import { freeListenerPort } from "../api/tcp"

const CANDIDATES = [process.env["PMFX_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"]

/** The Chromium to drive, or undefined when none is installed (the tests are then skipped). */
export const chromiumPath: string | undefined = CANDIDATES.find(
  (candidate): candidate is string => candidate !== undefined && candidate !== "" && fs.existsSync(candidate)
)

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: chromiumPath!, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] })

export interface Dashboard {
  readonly sandbox: Sandbox
  readonly port: number
  readonly url: string
}

/** A sandbox daemon with its web listener open on a free port (`pmfx web` options in `args`). */
export const openDashboard = async (args: ReadonlyArray<string> = []): Promise<Dashboard> => {
  const sandbox = makeSandbox()
  const port = await freeListenerPort()
  const web = sandbox.pmfx(["web", "--port", String(port), ...args])
  if (web.code !== 0) throw new Error(`pmfx web failed: ${web.stderr}`)
  if (!web.stdout.includes(`dashboard: http://localhost:${port}/ui/`))
    throw new Error(`pmfx web did not print the dashboard's address: ${web.stdout}`)
  return { sandbox, port, url: `http://localhost:${port}/ui/` }
}

/** A small app for the tests: prints a line every `everyMs` (an `error` line every fifth). */
export const tickerScript = (sandbox: Sandbox, name: string, everyMs = 300): string =>
  sandbox.write(
    `${name}.js`,
    `let n = 0; setInterval(() => { n++; if (n % 5 === 0) console.error("error: tick " + n); else console.log("tick " + n) }, ${everyMs})\n`
  )

const IMAGES = path.resolve(__dirname, "../../docs/images")

/**
 * Saves a screenshot for the docs (docs/images/<name>.png) when `PMFX_SCREENSHOTS=1`: a test run
 * leaves the committed images alone (each run's differ by a few pixels of uptimes and charts), and
 * skips the PNG encoding.
 */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  if (process.env.PMFX_SCREENSHOTS !== "1") return
  fs.mkdirSync(IMAGES, { recursive: true })
  await page.screenshot({ path: path.join(IMAGES, `${name}.png`), fullPage: false })
}
