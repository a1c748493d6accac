import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { socketPathFor } from "../../src/shared/Paths"
import { isAlive, waitFor } from "../support/daemon"

const PMFX = path.resolve(__dirname, "../../dist/pmfx.cjs")

describe("a PMFX_HOME too long for a unix socket path", () => {
  it("puts the socket in a short private folder that the CLI and the daemon agree on", async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-long-"))
    const home = path.join(base, "a-very-long-folder-name-for-a-home".repeat(3))
    const socket = socketPathFor(home)
    expect(socket.startsWith(home)).toBe(false)
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(107)
    const env = { PATH: process.env.PATH ?? "", PMFX_HOME: home, HOME: base }
    try {
      const ping = spawnSync(process.execPath, [PMFX, "ping", "--json"], { env, encoding: "utf8", timeout: 30_000 })
      expect(ping.status).toBe(0)
      expect(JSON.parse(ping.stdout).success).toBe(true)
      expect((fs.statSync(path.dirname(socket)).mode & 0o777).toString(8)).toBe("700")
      expect((fs.statSync(socket).mode & 0o777).toString(8)).toBe("600")
    } finally {
      const pid = Number(fs.readFileSync(path.join(home, "daemon.pid"), "utf8"))
      process.kill(pid, "SIGTERM")
      await waitFor(() => !isAlive(pid), "the daemon to exit")
      fs.rmSync(base, { recursive: true, force: true })
      fs.rmSync(path.dirname(socket), { recursive: true, force: true })
    }
  })
})
