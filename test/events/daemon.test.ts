/** Webhooks and alerts from an ecosystem file, through the built CLI and a real daemon. */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { fixture } from "../support/engine"
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver"

let sandbox: Sandbox
const receivers: Array<WebhookReceiver> = []
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(async () => {
  sandbox.cleanup()
  for (const receiver of receivers.splice(0)) await receiver.close()
})

const listen = async () => {
  const receiver = await startWebhookReceiver()
  receivers.push(receiver)
  return receiver
}

describe("ecosystem webhooks in the daemon", () => {
  it("pmfx start <file> applies the file's webhooks: a crash is POSTed", async () => {
    const receiver = await listen()
    const file = sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [{ name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "200" }, autorestart: false }],
        webhooks: [{ enabled: true, url: receiver.url, events: ["process_crash"] }],
        alerts: { memory: "1G" }
      })
    )
    const result = await sandbox.pmfxAsync(["start", file])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    await waitFor(() => receiver.bodies.length >= 1, "the crash webhook")
    expect(receiver.bodies[0]).toMatchObject({ event: "process_crash", process: { name: "crashy" }, data: { exit_code: 1 } })
  })
})
