/**
 * Stopping several apps at once stops them in reverse dependency order (docs/architecture.md §4,
 * depends_on): dependents first, each level once the one before it has stopped. Each app writes
 * its name to a shared file when it gets SIGTERM, so the file holds the order the daemon stopped
 * them in. Through the built binary and a real daemon.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { eventually, json, list, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/**
 * base ← mid ← top, and base ← side (`←`: is depended on by), all in namespace shop, plus
 * `other` outside it. Each app appends its name to `stops` on SIGTERM, a moment later for the
 * deeper apps, so a stop that did not wait for a level would show in the order.
 */
const writeApps = () => {
  const stops = path.join(sandbox.dir, "stops.txt")
  const ups = path.join(sandbox.dir, "ups.txt")
  const app = sandbox.write(
    "app.js",
    `const fs = require("fs")
const [name, delay] = process.argv.slice(2)
process.on("SIGTERM", () => setTimeout(() => { fs.appendFileSync(${JSON.stringify(stops)}, name + "\\n"); process.exit(0) }, Number(delay)))
fs.appendFileSync(${JSON.stringify(ups)}, name + "\\n")
setInterval(() => {}, 1000)
`
  )
  const entry = (name: string, delay: number, dependsOn: ReadonlyArray<string>, namespace = "shop") => ({
    name,
    script: app,
    args: [name, String(delay)],
    namespace,
    min_uptime: "100ms",
    depends_on: dependsOn
  })
  const file = sandbox.write(
    "ecosystem.json",
    JSON.stringify({
      apps: [
        entry("top", 0, ["mid"]),
        entry("mid", 150, ["base"]),
        entry("side", 150, ["base"]),
        entry("base", 0, []),
        entry("other", 0, [], "default")
      ]
    })
  )
  return { file, stops, ups }
}

const stopsOf = (file: string): Array<string> =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : []

/** top before mid; mid and side (one level, either order) before base. */
const expectReverseOrder = (order: ReadonlyArray<string>) => {
  const shop = order.filter((name) => name !== "other")
  expect(shop[0]).toBe("top")
  expect(new Set(shop.slice(1, 3))).toEqual(new Set(["mid", "side"]))
  expect(shop[3]).toBe("base")
}

/** Every app is online and has its SIGTERM handler in place (`ups` lists each start). */
const allUp = async (ups: string, starts: number) => {
  await eventually(() =>
    expect(list(sandbox).map((r) => r.status)).toEqual(["online", "online", "online", "online", "online"])
  )
  await eventually(() => expect(stopsOf(ups).length).toBe(starts))
}

describe("stopping several apps: dependents first", () => {
  it("a namespace and delete all stop in reverse dependency order; show lists what an app waits for", async () => {
    const { file, stops, ups } = writeApps()
    ok(sandbox, ["start", file])
    await allUp(ups, 5)

    ok(sandbox, ["stop", "shop"])
    expect(stopsOf(stops).length).toBe(4)
    expectReverseOrder(stopsOf(stops))
    // A file is applied in dependency order, so ids need not follow the file: compare by name.
    expect(
      list(sandbox)
        .map((r) => [r.name, r.status])
        .sort((a, b) => a[0]!.localeCompare(b[0]!))
    ).toEqual([
      ["base", "stopped"],
      ["mid", "stopped"],
      ["other", "online"],
      ["side", "stopped"],
      ["top", "stopped"]
    ])

    const top = json<{ config: { depends_on: unknown }; waiting_for: unknown }>(ok(sandbox, ["show", "top", "--json"]))
    expect(top.config.depends_on).toEqual([{ name: "mid", condition: "online" }])
    expect(top.waiting_for).toBeNull()

    fs.rmSync(stops)
    ok(sandbox, ["restart", "shop"])
    await allUp(ups, 9)
    ok(sandbox, ["delete", "all"])
    expect(list(sandbox)).toEqual([])
    expect(stopsOf(stops).length).toBe(5)
    expectReverseOrder(stopsOf(stops))
  })
})
