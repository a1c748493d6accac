/**
 * `pmfx alerts` and `pmfx alerts --webhooks` through the built CLI and a real daemon (docs/cli.md):
 * a crash's alert, its delivery to a receiver (URL redacted) and to a port nobody listens on; one
 * app's alerts and deliveries (by name, id or namespace, an unknown app refused); a bad or missing
 * `--limit` refused by the CLI itself with its usage exit code.
 */
import { describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { crashyWithWebhooks } from "../support/crashyWithWebhooks"
import { fixture } from "../support/engine"
import { letLoopTurn } from "../support/letLoopTurn"
import { sandboxWithReceivers } from "../support/sandboxWithReceivers"
import { eventually, eventuallyOverSocket, json, ok } from "./helpers"

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
      crashyWithWebhooks([`http://me:pw-secret@127.0.0.1:${port}/hook?key=k-secret`, `http://127.0.0.1:${dead}/down`])
    )
    ok(sandbox, ["start", file])

    await eventuallyOverSocket(sandbox, "/api/alerts", (body) => expect(body.alerts).toHaveLength(1))
    // The receiver answers from this process's event loop, which each CLI run below blocks (they are
    // synchronous): the deliveries are awaited over the socket first, so none waits on a blocked loop
    // (a loaded machine once made the receiver's delivery take a second attempt). The dead target is
    // given up after its retries (a few seconds).
    await eventuallyOverSocket(
      sandbox,
      "/api/webhooks/deliveries",
      (body) => expect(body.deliveries).toHaveLength(2),
      30_000
    )
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

  it.each([
    ["abc", '"abc" is not a whole number'],
    ["0", "0 entries is none at all"],
    ["101", "101 is more than the 100 entries the daemon keeps"]
  ])(
    "refuses --limit %s in the CLI's words (exit 2, BAD_REQUEST on --limit); the daemon still answers",
    (limit, reason) => {
      const sandbox = tests.sandbox()
      const suggestion = "--limit takes a number from 1 to 100, like --limit 10; leave it out for all 100"
      for (const args of [
        ["alerts", "--limit", limit],
        ["alerts", "--webhooks", "--limit", limit],
        ["alerts", "some-app", "--limit", limit]
      ]) {
        const result = sandbox.pmfx(args)
        expect(result.code, args.join(" ")).toBe(2)
        expect(result.stdout).toBe("")
        expect(result.stderr).toBe(`BAD_REQUEST --limit: ${reason}\n  suggestion: ${suggestion}\n`)
      }
      const asJson = sandbox.pmfx(["alerts", "--limit", limit, "--json"])
      expect(asJson.code).toBe(2)
      expect(json<{ error: { code: string; details: object } }>(asJson).error).toMatchObject({
        code: "BAD_REQUEST",
        details: { field: "--limit", reason, suggestion }
      })
      expect(ok(sandbox, ["alerts"]).stdout.trim()).toBe("no alert since the daemon started")
    }
  )

  it("says --limit needs a value when it has none (not taken for an app)", () => {
    const sandbox = tests.sandbox()
    for (const args of [
      ["alerts", "--limit"],
      ["alerts", "api", "--webhooks", "--limit"]
    ]) {
      const result = sandbox.pmfx(args)
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe(
        "BAD_REQUEST --limit needs a value\n  suggestion: give it one, like --limit <n>; run `pmfx alerts --help` to see what it takes\n"
      )
    }
    const asJson = sandbox.pmfx(["alerts", "--json", "--limit"])
    expect(asJson.code).toBe(2)
    expect(json<{ error: { code: string; message: string; details: object } }>(asJson).error).toMatchObject({
      code: "BAD_REQUEST",
      message: "--limit needs a value",
      details: { field: "--limit", reason: "needs a value" }
    })
  })

  it("shows one app's alerts and deliveries, by name, id or namespace, and refuses an unknown app", async () => {
    const sandbox = tests.sandbox()
    const receiver = await tests.listen()
    const crashing = (name: string, namespace: string) => ({
      name,
      namespace,
      script: fixture("crash-after.js"),
      env: { CRASH_AFTER_MS: "300" },
      autorestart: false
    })
    const file = sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [crashing("crashy", "shop"), crashing("other", "jobs"), crashing("gone", "jobs")],
        webhooks: [{ enabled: true, url: `${receiver.url}/hook`, events: ["process_crash"] }]
      })
    )
    ok(sandbox, ["start", file])
    type Alerts = { alerts: Array<{ process: { id: number; name: string } }> }
    type Deliveries = { deliveries: Array<{ process: { name: string } }> }
    await eventuallyOverSocket(sandbox, "/api/alerts", (body) => expect(body.alerts).toHaveLength(3), 30_000)
    await eventuallyOverSocket(
      sandbox,
      "/api/webhooks/deliveries",
      (body) => expect(body.deliveries).toHaveLength(3),
      30_000
    )
    await eventually(() => {
      expect(json<Alerts>(ok(sandbox, ["alerts", "--json"])).alerts).toHaveLength(3)
      expect(json<Deliveries>(ok(sandbox, ["alerts", "--webhooks", "--json"])).deliveries).toHaveLength(3)
    }, 30_000)
    const names = (args: Array<string>) =>
      json<Alerts>(ok(sandbox, ["alerts", ...args, "--json"]))
        .alerts.map((alert) => alert.process.name)
        .sort()
    const crashyId = json<Array<{ id: number; name: string }>>(ok(sandbox, ["jlist"])).find(
      (row) => row.name === "crashy"
    )!.id

    expect(names(["crashy"])).toEqual(["crashy"])
    expect(names([String(crashyId)])).toEqual(["crashy"])
    expect(names(["jobs"])).toEqual(["gone", "other"])
    expect(names(["jobs", "--limit", "1"])).toHaveLength(1)
    expect(names(["all"])).toEqual(["crashy", "gone", "other"])
    await letLoopTurn()
    const text = ok(sandbox, ["alerts", "crashy"]).stdout
    expect(text).toMatch(/^\S+ {2}process_crash {2}crashy \(id \d+\) crashed: exited with code 1\n$/)
    const deliveries = json<Deliveries>(ok(sandbox, ["alerts", "other", "--webhooks", "--json"])).deliveries
    expect(deliveries.map((delivery) => delivery.process.name)).toEqual(["other"])
    expect(ok(sandbox, ["alerts", "other", "--webhooks"]).stdout).toContain("process_crash of other")

    // A deleted app's entries are still found by its name; a name nothing has is PROCESS_NOT_FOUND.
    await letLoopTurn()
    ok(sandbox, ["delete", "gone"])
    expect(names(["gone"])).toEqual(["gone"])
    for (const args of [["crashx"], ["crashx", "--webhooks"]]) {
      const unknown = sandbox.pmfx(["alerts", ...args])
      expect(unknown.code).toBe(4)
      expect(unknown.stdout).toBe("")
      expect(unknown.stderr).toBe(
        'PROCESS_NOT_FOUND no process with id, name or namespace "crashx"\n  suggestion: did you mean "crashy"?\n'
      )
    }
    await letLoopTurn()
    const asJson = sandbox.pmfx(["alerts", "crashx", "--json"])
    expect(asJson.code).toBe(4)
    expect(json<{ error: { code: string; details: object } }>(asJson).error).toMatchObject({
      code: "PROCESS_NOT_FOUND",
      details: { process_id: "crashx", suggestion: 'did you mean "crashy"?' }
    })
    // Nothing else changed: the other apps and their history are still there.
    expect(names([])).toEqual(["crashy", "gone", "other"])
    expect(ok(sandbox, ["alerts", "shop"]).stdout).toContain("crashy (id")
    // ~25 commands run one after the other: ~10 s alone, over a minute once on a 2-core machine
    // that also ran other suites; the deadline is for a hang, not for speed.
  }, 180_000)
})
