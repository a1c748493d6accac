/**
 * `pmfx monit` driven like a person at a terminal: in a detached tmux session (its own server,
 * whose socket (`-S`) lives in the test's sandbox, so no other tmux is touched and none is left behind), keys sent with `send-keys`, the screen read with
 * `capture-pane`. Skipped, saying why, where tmux is not installed (`.ci/run` installs Debian's).
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { makeSandbox, PMFX_BIN, type Sandbox } from "../support/cli"
import { request, waitFor } from "../support/daemon"
import { createApps } from "./createApp"
import { eventually, node, ok } from "./helpers"
import { freePort } from "./tcp"

const hasTmux = spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0
if (!hasTmux)
  console.warn("monit tmux tests SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)")

/** An app that prints a numbered line 5 times a second. */
const printer = (word: string) => ({
  name: word,
  script: node,
  args: ["-e", `let i = 0; setInterval(() => console.log("${word}-line " + ++i), 200)`]
})

describe("pmfx monit in tmux", () => {
  let sandbox: Sandbox
  const tmux = (...args: ReadonlyArray<string>) => {
    const result = spawnSync("tmux", ["-S", path.join(sandbox.dir, "tmux.sock"), ...args], {
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: sandbox.dir,
        PMFX_HOME: sandbox.home,
        TERM: "xterm-256color"
      }
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }
  const screen = () => tmux("capture-pane", "-p", "-t", "monit").stdout
  /** The log pane: the lines under its title. */
  const logPane = () => {
    const lines = screen().split("\n")
    return lines.slice(lines.findIndex((line) => line.startsWith("─ Logs")))
  }
  const keys = (...names: ReadonlyArray<string>) => expect(tmux("send-keys", "-t", "monit", ...names).code).toBe(0)

  beforeEach(() => {
    sandbox = makeSandbox()
  })
  afterEach(() => {
    if (hasTmux) tmux("kill-server")
    sandbox.cleanup()
  })

  it.runIf(hasTmux)(
    "watches a remote daemon over --url with a key; a read-only key watches but cannot act",
    async () => {
      await createApps(sandbox, printer("remote"))
      const port = await freePort()
      ok(sandbox, [
        "web",
        "--port",
        String(port),
        "--api-key",
        "monit-full-key",
        "--read-only-api-key",
        "monit-read-key"
      ])
      // The CLI's own home is elsewhere: nothing local is started or read.
      const elsewhere = path.join(sandbox.dir, "client-home")
      const command = `PMFX_HOME='${elsewhere}' '${node}' '${PMFX_BIN}' --url http://127.0.0.1:${port} --api-key monit-read-key monit; echo "monit exit=$?"; exec sleep 600`
      expect(tmux("-f", "/dev/null", "new-session", "-d", "-s", "monit", "-x", "120", "-y", "30", command).code).toBe(0)
      await eventually(() => {
        expect(screen()).toMatch(/^▸ remote +online/m)
        expect(screen()).toContain("● live")
        expect(logPane().join("\n")).toMatch(/out remote-line \d+/)
      }, 30_000)
      keys("s")
      await eventually(() => expect(screen()).toContain("Stop remote? y/n"))
      keys("y")
      await eventually(() => expect(screen()).toMatch(/FORBIDDEN: .*read-only.*give monit the daemon's full API key/))
      expect(
        (
          (await request(path.join(sandbox.home, "pmfx.sock"), "GET", "/api/processes/remote")).body as {
            status: string
          }
        ).status
      ).toBe("online")
      keys("q")
      await eventually(() => expect(screen()).toContain("monit exit=0"))
    }
  )

  it.runIf(hasTmux)(
    "lists both apps, follows the selected one's logs, restarts with a confirmation, redraws on resize, and gives the terminal back on q",
    async () => {
      await createApps(sandbox, printer("alpha"))
      await createApps(sandbox, printer("bravo"))
      const socket = path.join(sandbox.home, "pmfx.sock")
      // A shell around monit reports, after it exits, its exit code and the terminal's mode.
      const command = `'${node}' '${PMFX_BIN}' monit; echo "monit exit=$?"; stty -a | tr ' ' '\\n' | grep -x -e -icanon -e icanon -e -echo -e echo | tr '\\n' ' '; echo; exec sleep 600`
      expect(tmux("-f", "/dev/null", "new-session", "-d", "-s", "monit", "-x", "120", "-y", "40", command).code).toBe(0)

      // The list shows both apps; the first is selected and its lines stream in.
      await eventually(() => {
        const text = screen()
        expect(text).toMatch(/^▸ alpha +online/m)
        expect(text).toMatch(/^ {2}bravo +online/m)
        expect(text).toContain("● live")
        expect(logPane().join("\n")).toMatch(/out alpha-line \d+/)
      }, 30_000)

      // Selecting the second app shows ITS lines, and only those.
      keys("j")
      await eventually(() => {
        const pane = logPane()
        expect(pane[0]).toMatch(/^─ Logs: bravo /)
        expect(pane.join("\n")).toMatch(/out bravo-line \d+/)
        expect(pane.join("\n")).not.toContain("alpha-line")
        expect(screen()).toMatch(/^▸ bravo +online/m)
      })
      // New lines keep coming, within a second or so of being written.
      const newest = () => Math.max(...logPane().map((line) => Number(/bravo-line (\d+)/.exec(line)?.[1] ?? 0)))
      const seen = newest()
      await eventually(() => expect(newest()).toBeGreaterThan(seen + 2))

      // Restart, after a y/n question.
      const before = (await request(socket, "GET", "/api/processes/bravo")).body as { pid: number; restarts: number }
      keys("r")
      await eventually(() => expect(screen()).toContain("Restart bravo? y/n"))
      keys("y")
      await waitFor(async () => {
        const after = (await request(socket, "GET", "/api/processes/bravo")).body as {
          pid: number | null
          restarts: number
        }
        return after.restarts === before.restarts + 1 && after.pid !== null && after.pid !== before.pid
      }, "bravo restarted once")
      await eventually(() => expect(screen()).toMatch(/^▸ bravo +online +\S+ +\S+ MB +1 /m))
      await eventually(() => expect(screen()).toMatch(/restart/i))
      // alpha was left alone.
      expect(((await request(socket, "GET", "/api/processes/alpha")).body as { restarts: number }).restarts).toBe(0)

      // A smaller terminal: redrawn to fit, with the details under the table.
      expect(tmux("resize-window", "-t", "monit", "-x", "80", "-y", "24").code).toBe(0)
      await eventually(() => {
        const lines = screen()
          .split("\n")
          .filter((line) => line !== "")
        expect(lines.some((line) => line.startsWith("─ Details"))).toBe(true)
        for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80)
      })

      // q quits: exit 0, the main screen back, the cursor shown, raw mode off.
      keys("q")
      await eventually(() => expect(screen()).toContain("monit exit=0"))
      // (stty prints -icanon and -echo while raw mode is still on.)
      expect(screen()).toMatch(/^icanon echo$/m)
      expect(screen()).not.toContain("pmfx monit  ")
      expect(tmux("display-message", "-p", "-t", "monit", "#{alternate_on} #{cursor_flag}").stdout.trim()).toBe("0 1")
    }
  )
})
