/**
 * The executable `dist/pmfx` (src/pmfx.sh): the CLI from its startup snapshot when the Node on the
 * PATH made it, through the Node launcher otherwise — each way with the same answers
 * (docs/architecture.md §10). PMFX_DEBUG=1 makes the executable say which way it went.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import packageJson from "../../package.json"
import { PMFX_EXECUTABLE } from "../support/cli"

const DIST = path.dirname(PMFX_EXECUTABLE)
const FROM_SNAPSHOT = `pmfx: the CLI starts from its snapshot, ${DIST}/pmfx-main.blob\n`

let scratch: string
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-executable-"))
  fs.writeFileSync(path.join(scratch, "apps.yaml"), "apps:\n  - name: web\n    script: sleep\n    args: ['60']\n")
  fs.writeFileSync(
    path.join(scratch, "apps.mjs"),
    'export default { apps: [{ name: "esm", script: "sleep", args: ["60"] }] }\n'
  )
})
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true })
})

/** Runs `executable` (no daemon is started by these commands) with PMFX_DEBUG=1. */
const run = (executable: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const result = spawnSync(executable, args, {
    cwd: scratch,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: scratch,
      PMFX_HOME: path.join(scratch, "home"),
      PMFX_DEBUG: "1",
      ...env
    },
    encoding: "utf8",
    timeout: 30_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A copy of dist/'s CLI files in a folder of its own, for a snapshot made by another Node, or none. */
const copyOfDist = (name: string): string => {
  const copy = path.join(scratch, name)
  fs.mkdirSync(copy)
  for (const file of fs.readdirSync(DIST)) {
    if (file.endsWith(".map") || file === "types" || file === "ui" || file.startsWith(".")) continue
    fs.cpSync(path.join(DIST, file), path.join(copy, file), { recursive: true, preserveTimestamps: true })
  }
  return path.join(copy, "pmfx")
}

describe("dist/pmfx", () => {
  it("starts the CLI from the snapshot the build made with this Node", () => {
    expect(fs.readFileSync(path.join(DIST, "pmfx-main.blob.node"), "utf8")).toBe(
      `${fs.realpathSync(process.execPath)}\n`
    )
    const version = run(PMFX_EXECUTABLE, ["--version"])
    expect(version).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: FROM_SNAPSHOT })
    // A YAML file (a package loaded on first use, next to the bundle) and an ES module (import()).
    for (const file of ["apps.yaml", "apps.mjs"]) {
      const valid = run(PMFX_EXECUTABLE, ["validate", file, "--json"])
      expect(valid.stderr).toBe(FROM_SNAPSHOT)
      expect(valid.code, valid.stdout).toBe(0)
      expect(JSON.parse(valid.stdout)).toMatchObject({
        success: true,
        apps: [{ name: file === "apps.yaml" ? "web" : "esm", script: "sleep", args: ["60"] }]
      })
    }
    // A usage error is the same structured error either way.
    const bad = run(PMFX_EXECUTABLE, ["stop", "--jsno"])
    expect(bad.code).toBe(2)
    expect(bad.stderr.startsWith(FROM_SNAPSHOT)).toBe(true)
    const bare = run(PMFX_EXECUTABLE, ["stop", "--jsno"], { PMFX_CLI_SNAPSHOT: "0" })
    expect(bare.code).toBe(2)
    expect(bad.stderr.slice(FROM_SNAPSHOT.length)).toBe(bare.stderr.slice(bare.stderr.indexOf("\n") + 1))
  })

  it("starts it through the Node launcher when told to, under NODE_OPTIONS, and for the launcher's own commands", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
      [["--version"], { PMFX_CLI_SNAPSHOT: "0" }, "PMFX_CLI_SNAPSHOT=0"],
      [["--version"], { NODE_OPTIONS: "--max-old-space-size=256" }, "NODE_OPTIONS is set"],
      [["completion", "--list-names"], {}, "the launcher answers this command itself"],
      [["daemon", "--help"], {}, "the launcher runs this command itself"]
    ]
    for (const [args, env, reason] of [
      ...cases,
      // An ES module file through the launcher under a Node flag: no experimental-API warning either.
      [["validate", "apps.mjs"], { NODE_OPTIONS: "--max-old-space-size=256" }, "NODE_OPTIONS is set"] as const
    ]) {
      const result = run(PMFX_EXECUTABLE, args, env)
      expect(result.stderr, args.join(" ")).toBe(`pmfx: the CLI starts without its snapshot: ${reason}\n`)
      expect(result.code, args.join(" ")).toBe(0)
    }
    // Aimed at a remote daemon that is not there (so no local daemon is started): the listings
    // the launcher answers for the local daemon are the CLI's, from its snapshot, which says it
    // cannot reach the remote one.
    for (const args of [["list", "--json"], ["jlist"], ["list"], ["ls"]]) {
      const list = run(PMFX_EXECUTABLE, args, { PMFX_URL: "http://127.0.0.1:9" })
      expect(list.stderr.startsWith(FROM_SNAPSHOT), args.join(" ")).toBe(true)
      expect(list.code, args.join(" ")).toBe(7)
    }
    expect(fs.existsSync(path.join(scratch, "home"))).toBe(false)
  })

  it("starts it through the Node launcher when the snapshot is another Node's, older than this Node, or missing", () => {
    const otherNode = copyOfDist("other-node")
    fs.writeFileSync(path.join(path.dirname(otherNode), "pmfx-main.blob.node"), "/opt/node-18/bin/node\n")
    const older = copyOfDist("older")
    const oldTime = new Date("2001-01-01T00:00:00Z")
    fs.utimesSync(path.join(path.dirname(older), "pmfx-main.blob"), oldTime, oldTime)
    const none = copyOfDist("none")
    fs.rmSync(path.join(path.dirname(none), "pmfx-main.blob"))
    const node = fs.realpathSync(process.execPath)
    const cases: ReadonlyArray<readonly [string, string]> = [
      [
        otherNode,
        `it was made by /opt/node-18/bin/node, and node on the PATH is ${node} (npm run build makes one for it)`
      ],
      [older, `${node} changed after it was made (npm run build makes it again)`],
      [none, "the build made none (npm run build makes it)"]
    ]
    for (const [executable, reason] of cases) {
      const result = run(executable, ["--version"])
      expect(result).toEqual({
        code: 0,
        stdout: `${packageJson.version}\n`,
        stderr: `pmfx: the CLI starts without its snapshot: ${reason}\n`
      })
    }
    // The copy with its snapshot intact starts from it (the checks above are what set the others apart).
    const intact = copyOfDist("intact")
    expect(run(intact, ["--version"]).stderr).toBe(
      `pmfx: the CLI starts from its snapshot, ${path.dirname(intact)}/pmfx-main.blob\n`
    )
  })

  it("says what to do when no node is on the PATH", () => {
    const result = spawnSync(PMFX_EXECUTABLE, ["--version"], { env: { PATH: scratch }, encoding: "utf8" })
    expect(result.status).toBe(127)
    expect(result.stderr).toBe(
      "pmfx: node was not found on the PATH: install Node.js 20 or later, or add it to the PATH\n"
    )
  })
})
