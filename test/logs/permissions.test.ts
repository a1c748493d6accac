/**
 * Log files are their user's alone (docs/configuration.md, "Log file permissions"): the home and
 * `logs/` 0700, every log file 0600 — in `logs/`, at an `out_file` elsewhere, rotated and gzipped —
 * older wider files narrowed when opened, and a home wider than 0700 warned about.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { eventually, ok } from "../cli/helpers"
import { makeSandbox, type Sandbox } from "../support/cli"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8)

/** An app printing `count` lines of ~100 bytes at once, then idling. */
const printer = (count: number) => ({
  script: process.execPath,
  args: [
    "-e",
    `for (let i = 0; i < ${count}; i++) console.log("line " + i + " " + "x".repeat(90)); setInterval(() => {}, 1000)`
  ]
})

describe("log file permissions", () => {
  it("creates the home and logs/ 0700 and every log file 0600: out/err, an out_file elsewhere, rotated and gzipped files", async () => {
    const elsewhere = path.join(sandbox.dir, "shared")
    fs.mkdirSync(elsewhere, { mode: 0o755 })
    fs.chmodSync(elsewhere, 0o755)
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          { name: "rotating", ...printer(400), max_log_size: "4K", max_log_files: 50, compress_logs: true },
          {
            name: "outside",
            ...printer(3),
            out_file: path.join(elsewhere, "outside.out.log"),
            error_file: path.join(elsewhere, "outside.err.log")
          }
        ]
      })
    )
    ok(sandbox, ["start", file])
    const logs = path.join(sandbox.home, "logs")
    const gzipped = await eventually(() => {
      const rotated = fs.readdirSync(logs).filter((name) => name.startsWith("rotating-0-out.log."))
      const found = rotated.filter((name) => name.endsWith(".gz"))
      expect(found.length).toBeGreaterThan(0)
      // Compression settled: no rotated file is still being gzipped (it would vanish under stat).
      expect(rotated).toEqual(found)
      return found
    })
    await eventually(() => expect(fs.readFileSync(path.join(elsewhere, "outside.out.log"), "utf8")).toContain("line 2"))

    expect(modeOf(sandbox.home)).toBe("700")
    expect(modeOf(logs)).toBe("700")
    for (const name of fs.readdirSync(logs)) expect([name, modeOf(path.join(logs, name))]).toEqual([name, "600"])
    expect(fs.readdirSync(logs)).toEqual(expect.arrayContaining(["rotating-0-out.log", "rotating-0-err.log"]))
    expect(gzipped.length).toBeGreaterThan(0)
    expect(modeOf(path.join(elsewhere, "outside.out.log"))).toBe("600")
    expect(modeOf(path.join(elsewhere, "outside.err.log"))).toBe("600")
    expect(modeOf(path.join(sandbox.home, "daemon.log"))).toBe("600")
  })

  it("narrows the files of an older, wider home when it opens them, and warns about the home itself", async () => {
    // What an earlier pmfx (or a careless umask) left: a 0755 home, a 0755 logs/, 0644 files.
    const logs = path.join(sandbox.home, "logs")
    fs.mkdirSync(logs, { recursive: true })
    fs.chmodSync(sandbox.home, 0o755)
    fs.chmodSync(logs, 0o755)
    const oldOut = path.join(logs, "old-0-out.log")
    fs.writeFileSync(oldOut, "an old line\n", { mode: 0o644 })
    fs.chmodSync(oldOut, 0o644)
    fs.writeFileSync(path.join(sandbox.home, "daemon.log"), "", { mode: 0o644 })
    fs.chmodSync(path.join(sandbox.home, "daemon.log"), 0o644)

    ok(sandbox, [
      "start",
      `${process.execPath} -e "console.log('a new line'); setInterval(() => {}, 1000)"`,
      "--name",
      "old"
    ])
    await eventually(() => expect(fs.readFileSync(oldOut, "utf8")).toContain("a new line"))
    // The old lines are kept; the file, logs/ and daemon.log are narrowed; the home is the user's.
    expect(fs.readFileSync(oldOut, "utf8")).toMatch(/^an old line\n/)
    expect(modeOf(oldOut)).toBe("600")
    expect(modeOf(logs)).toBe("700")
    expect(modeOf(path.join(sandbox.home, "daemon.log"))).toBe("600")
    expect(modeOf(sandbox.home)).toBe("755")

    const warning = `warning: PMFX_HOME ${sandbox.home} is readable by other users (mode 0755); run \`chmod 700 ${sandbox.home}\` unless you share it on purpose`
    await eventually(() => expect(fs.readFileSync(path.join(sandbox.home, "daemon.log"), "utf8")).toContain(warning))
    const status = sandbox.pmfx(["status"])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stderr).toContain(warning)
    expect(status.stdout).toContain("running")
    // --json keeps stdout JSON; the warning goes to stderr.
    const asJson = sandbox.pmfx(["status", "--json"])
    expect(JSON.parse(asJson.stdout)).toMatchObject({ home: sandbox.home })
    expect(asJson.stderr).toContain(warning)

    // Once the home is narrowed, the warning is gone.
    fs.chmodSync(sandbox.home, 0o700)
    expect(sandbox.pmfx(["status"]).stderr).not.toContain("warning")
  })
})
