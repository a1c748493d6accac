/** Webhooks and alerts from an ecosystem file, through the built CLI and a real daemon. */
import { describe, expect, it } from "@effect/vitest"
import { waitFor } from "../support/daemon"
import { fixture } from "../support/engine"
import { sandboxWithReceivers } from "../support/sandboxWithReceivers"

const tests = sandboxWithReceivers()
const { listen } = tests

describe("ecosystem webhooks in the daemon", () => {
  it("pmfx start <file> applies the file's webhooks: a crash is POSTed", async () => {
    const receiver = await listen()
    const file = tests.sandbox().write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "200" }, autorestart: false }
        ],
        webhooks: [{ enabled: true, url: receiver.url, events: ["process_crash"] }],
        alerts: { memory: "1G" }
      })
    )
    const result = await tests.sandbox().pmfxAsync(["start", file])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    await waitFor(() => receiver.bodies.length >= 1, "the crash webhook")
    expect(receiver.bodies[0]).toMatchObject({
      event: "process_crash",
      process: { name: "crashy" },
      data: { exit_code: 1 }
    })
  })
})
