/** What of a webhook URL the delivery history may show (src/events/redactUrl.ts, docs/decisions.md). */
import { describe, expect, it } from "@effect/vitest"
import { redactUrl } from "../../src/events/redactUrl"

describe("redactUrl", () => {
  it.each([
    ["http://127.0.0.1:8080/hook", "http://127.0.0.1:8080/hook"],
    ["https://example.com/api/webhooks", "https://example.com/api/webhooks"],
    ["https://user:pass@example.com/hook", "https://***@example.com/hook"],
    ["https://token@example.com/hook", "https://***@example.com/hook"],
    ["https://example.com/hook?key=secret&x=1", "https://example.com/hook?***"],
    ["https://example.com/hook#frag", "https://example.com/hook#***"],
    [
      "https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX",
      "https://hooks.slack.com/services/T0000000/B0000000/***"
    ],
    [
      "https://discord.com/api/webhooks/123456789012345678/abc-DEF_ghi",
      "https://discord.com/api/webhooks/***/abc-DEF_ghi"
    ],
    ["not a url with secret", "***"]
  ])("%s → %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown)
  })
})
