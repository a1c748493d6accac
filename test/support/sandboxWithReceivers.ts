/**
 * A fresh CLI sandbox per test and the webhook receivers the test opens, for tests of webhooks
 * through the built binary. Registers its own `beforeEach`/`afterEach`: the daemon (and its apps)
 * stop first, so nothing posts to a closing receiver, then the receivers close.
 */
import { afterEach, beforeEach } from "@effect/vitest"
import { makeSandbox, type Sandbox } from "./cli"
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver"

export interface SandboxWithReceivers {
  /** This test's sandbox (a new one for each test). */
  readonly sandbox: () => Sandbox
  /** Opens a receiver that is closed after the test. */
  readonly listen: (options?: { readonly hang?: boolean }) => Promise<WebhookReceiver>
}

export const sandboxWithReceivers = (): SandboxWithReceivers => {
  let current: Sandbox | undefined
  const receivers: Array<WebhookReceiver> = []
  beforeEach(() => {
    current = makeSandbox()
  })
  afterEach(async () => {
    current?.cleanup()
    for (const receiver of receivers.splice(0)) await receiver.close()
  })
  return {
    sandbox: () => {
      if (current === undefined) throw new Error("sandboxWithReceivers: no test is running")
      return current
    },
    listen: async (options) => {
      const receiver = await startWebhookReceiver(options)
      receivers.push(receiver)
      return receiver
    }
  }
}
