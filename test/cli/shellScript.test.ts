/**
 * A `script` that is a command line (a space, and no such file) runs through `bash -c`, visibly
 * (`show` says so, from a file and from the daemon); a file whose path has spaces runs directly.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, eventually, json, node, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/** Prints its arguments as JSON and stays up. */
const PRINT_ARGS = `console.log("args " + JSON.stringify(process.argv.slice(2))); setInterval(() => {}, 1000)\n`

const outLog = (name: string) => path.join(sandbox.home, "logs", `${name}-0-out.log`)
const cmdline = (pid: number) =>
  fs
    .readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((w) => w !== "")

describe("script as a command line", () => {
  it("runs a script with spaces that is no file through bash -c, args as words, and show says so", async () => {
    sandbox.write("print-args.js", PRINT_ARGS)
    fs.mkdirSync(path.join(sandbox.dir, "my app"))
    const direct = sandbox.write("my app/server.js", PRINT_ARGS)
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          { name: "line", script: `${node} print-args.js --from-script`, args: ["--port", "3000 x", "$HOME"] },
          { name: "spaced", script: "./my app/server.js", args: ["one"] }
        ]
      })
    )

    // From the file: the resolved definition and the readable block.
    const shownFile = sandbox.pmfx(["show", file])
    expect(shownFile.code).toBe(0)
    expect(shownFile.stdout).toContain("shell")
    expect(shownFile.stdout).toContain("bash -c (script is a command line, not a file)")
    const resolved = json<{ apps: Array<{ name: string; script: string; shell: string | null }> }>(
      ok(sandbox, ["show", file, "--json"])
    )
    expect(resolved.apps.map((a) => [a.name, a.script, a.shell])).toEqual([
      ["line", `${node} print-args.js --from-script`, "bash"],
      ["spaced", direct, null]
    ])

    ok(sandbox, ["start", file])
    const rows = await allOnline(sandbox, 2)
    // Each arg reaches the program as one word, unexpanded; the script's own words come first.
    await eventually(() =>
      expect(fs.readFileSync(outLog("line"), "utf8")).toContain(
        `args ${JSON.stringify(["--from-script", "--port", "3000 x", "$HOME"])}`
      )
    )
    await eventually(() =>
      expect(fs.readFileSync(outLog("spaced"), "utf8")).toContain(`args ${JSON.stringify(["one"])}`)
    )
    // The file with spaces runs directly: node with the path as one argument, no shell.
    expect(cmdline(rows[1]!.pid!)).toEqual([node, direct, "one"])

    // From the daemon: show and the API's detail say the shell.
    const detail = json<{ config: { script: string; shell: string | null } }>(ok(sandbox, ["show", "line", "--json"]))
    expect(detail.config.shell).toBe("bash -c")
    expect(ok(sandbox, ["show", "line"]).stdout).toMatch(/shell\s+bash -c/)
    expect(
      json<{ config: { shell: string | null } }>(ok(sandbox, ["show", "spaced", "--json"])).config.shell
    ).toBeNull()
  })

  it("with an interpreter, a script with spaces is what the interpreter runs, never a shell", () => {
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({ apps: [{ name: "interp", script: "app.py --debug", interpreter: "python3" }] })
    )
    const shown = json<{ apps: Array<{ script: string; shell: string | null }> }>(ok(sandbox, ["show", file, "--json"]))
    expect(shown.apps[0]!.shell).toBeNull()
    expect(shown.apps[0]!.script).toBe("app.py --debug")
  })
})
