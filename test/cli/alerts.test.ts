/**
 * `pmfx alerts` and `pmfx alerts --webhooks` through the built CLI and a real daemon (docs/cli.md):
 * a crash's alert, its delivery to a receiver (URL redacted) and to a port nobody listens on, and a
 * bad `--limit` refused by the daemon with the CLI's usage exit code.
 */
import { describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fixture } from "../support/engine"
import { sandboxWithReceivers } from "../support/sandboxWithReceivers"
import { eventually, json, ok } from "./helpers"

const tests = sandboxWithReceivers()

/** A port nothing listens on (bound, then released). */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

describe("pmfx alerts", () => {
  it("prints nothing-yet on a fresh daemon, then the crash alert and both deliveries", async () => {
    const sandbox = tests.sandbox()
    expect(ok(sandbox, ["alerts"]).stdout.trim()).toBe("no alert since the daemon started")
    expect(ok(sandbox, ["alerts", "--webhooks"]).stdout.trim()).toBe("no webhook delivery since the daemon started")

    const receiver = await tests.listen()
    const dead = await closedPort()
    const port = new URL(receiver.url).port
    const file = sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "300" }, autorestart: false }
        ],
        webhooks: [
          { enabled: true, url: `http://me:pw-secret@127.0.0.1:${port}/hook?key=k-secret`, events: ["process_crash"] },
          { enabled: true, url: `http://127.0.0.1:${dead}/down`, events: ["process_crash"] }
        ]
      })
    )
    ok(sandbox, ["start", file])

    const alerts = await eventually(() => {
      const answer = json<{ alerts: Array<{ kind: string; process: { name: string } }> }>(
        ok(sandbox, ["alerts", "--json"])
      )
      expect(answer.alerts).toHaveLength(1)
      return answer
    })
    expect(alerts).toMatchObject({
      capacity: 100,
      recorded: 1,
      alerts: [{ kind: "process_crash", process: { name: "crashy" } }]
    })
    expect(ok(sandbox, ["alerts"]).stdout).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}process_crash {2}crashy \(id \d+\) crashed: exited with code 1\n$/
    )

    // The dead target is given up after its retries (a few seconds).
    await eventually(() => {
      expect(
        json<{ deliveries: Array<unknown> }>(ok(sandbox, ["alerts", "--webhooks", "--json"])).deliveries
      ).toHaveLength(2)
    }, 30_000)
    const text = ok(sandbox, ["alerts", "--webhooks"]).stdout
    const lines = text.trim().split("\n")
    expect(lines).toHaveLength(2)
    const delivered = lines.find((line) => line.includes("delivered"))
    const failed = lines.find((line) => line.includes("failed"))
    expect(delivered).toContain(`delivered 204`)
    expect(delivered).toContain(`process_crash of crashy`)
    expect(delivered).toContain(`http://***@127.0.0.1:${port}/hook?***`)
    expect(delivered).toContain("1 attempt,")
    expect(failed).toContain("failed: connect ECONNREFUSED")
    expect(failed).toContain(`http://127.0.0.1:${dead}/down`)
    expect(failed).toContain("4 attempts,")
    expect(text).not.toContain("secret")

    const newest = json<{ deliveries: Array<unknown>; recorded: number }>(
      ok(sandbox, ["alerts", "--webhooks", "--limit", "1", "--json"])
    )
    expect(newest.deliveries).toHaveLength(1)
    expect(newest.recorded).toBe(2)
  })

  it.each(["abc", "0", "101"])(
    "refuses --limit %s (exit 2, BAD_REQUEST on limit) and the daemon still answers",
    (limit) => {
      const sandbox = tests.sandbox()
      const result = sandbox.pmfx(["alerts", "--limit", limit])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toMatch(/^BAD_REQUEST Invalid limit: /)
      expect(result.stderr).toContain("suggestion:")
      const asJson = sandbox.pmfx(["alerts", "--limit", limit, "--json"])
      expect(asJson.code).toBe(2)
      expect(json<{ error: { code: string; details: { field: string } } }>(asJson).error).toMatchObject({
        code: "BAD_REQUEST",
        details: { field: "limit" }
      })
      expect(ok(sandbox, ["alerts"]).stdout.trim()).toBe("no alert since the daemon started")
    }
  )
})
