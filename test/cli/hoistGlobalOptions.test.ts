import { describe, expect, it } from "@effect/vitest"
import { hoistGlobalOptions } from "../../src/cli/hoistGlobalOptions"

const hoist = (line: string) =>
  hoistGlobalOptions(["node", "pmfx", ...line.split(" ").filter((w) => w !== "")])
    .slice(2)
    .join(" ")

describe("hoistGlobalOptions", () => {
  it.each([
    ["list --url U --json", "--url U list --json"],
    ["list --json --url=U --api-key K", "--url=U --api-key K list --json"],
    ["status --url U", "--url U status"],
    ["stop api --api-key K --url U", "--api-key K --url U stop api"],
    ["--url U list --json", "--url U list --json"],
    ["--url U --api-key K status api", "--url U --api-key K status api"],
    ["web --api-key K --port 9", "web --api-key K --port 9"],
    ["web --url U", "--url U web"],
    ["daemon --web --api-key K", "daemon --web --api-key K"],
    ["start node -- --url U", "start node -- --url U"],
    ["list --url", "list --url"],
    ["--version", "--version"],
    ["", ""]
  ])("%s → %s", (line, expected) => {
    expect(hoist(line)).toBe(expected)
  })
})
