/**
 * An ecosystem file's text for the alert and webhook tests: one app, `crashy`, that exits 1 after
 * 300 ms and is not restarted (one `process_crash` alert), and a webhook for that alert to each URL.
 */
import { fixture } from "./engine"

export const crashyWithWebhooks = (urls: ReadonlyArray<string>): string =>
  JSON.stringify({
    apps: [{ name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "300" }, autorestart: false }],
    webhooks: urls.map((url) => ({ enabled: true, url, events: ["process_crash"] }))
  })
