import { describe, expect, it } from "@effect/vitest"
import { expandAliases } from "../../src/cli/commandAliases"
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
    // `info` is --log-level's value here, not a command: the URL after `list` is still hoisted.
    ["--log-level info list --url U", "--log-level info --url U list"],
    ["--version", "--version"],
    ["", ""]
  ])("%s → %s", (line, expected) => {
    expect(hoist(line)).toBe(expected)
  })
})

describe("expandAliases", () => {
  const expand = (line: string) =>
    expandAliases(["node", "pmfx", ...line.split(" ").filter((w) => w !== "")])
      .slice(2)
      .join(" ")

  it.each([
    ["ls", "list"],
    ["jlist", "list --json"],
    ["info api", "show api"],
    ["--url U describe api", "--url U show api"],
    // A value of a root option is never taken for an alias.
    ["--log-level info list --json", "--log-level info list --json"],
    ["--log-level debug ls", "--log-level debug list"],
    ["--api-key ls status", "--api-key ls status"],
    ["start app.js -- ls", "start app.js -- ls"]
  ])("%s → %s", (line, expected) => {
    expect(expand(line)).toBe(expected)
  })
})
