/**
 * The exports committed under examples/export/ are exactly what `pmfx export` writes for the
 * examples today (so they never go stale), every format of the example ecosystem exports the same,
 * and the examples export without warnings of their own. To refresh the committed files after a
 * deliberate change: `PMFX_UPDATE_EXPORT_EXAMPLES=1 npx vitest run test/export/examples.test.ts`.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { filesUnder } from "./exportFixture"

const examples = path.resolve(__dirname, "../../examples")
const committed = path.join(examples, "export")

/** Each committed folder and the command line that writes it (paths from examples/; see examples/export/README.md). */
const exampleExports: ReadonlyArray<{ readonly dir: string; readonly args: ReadonlyArray<string> }> = [
  { dir: "kubernetes", args: ["kubernetes", "ecosystem.json"] },
  { dir: "compose", args: ["compose", "ecosystem.json"] },
  { dir: "systemd", args: ["systemd", "ecosystem.json", "--workdir", "/srv/pmfx-examples"] },
  {
    dir: "pm2-kubernetes",
    args: ["kubernetes", "pm2/ecosystem.config.js", "--env", "production", "--root", ".", "--cpus", "2"]
  },
  {
    dir: "pm2-compose",
    args: ["compose", "pm2/ecosystem.config.js", "--env", "production", "--root", ".", "--cpus", "2"]
  }
]

/** The command line with its paths made absolute (the sandbox runs elsewhere). */
const absolute = (args: ReadonlyArray<string>): Array<string> =>
  args.map((arg, i) => (i === 1 || args[i - 1] === "--root" ? path.join(examples, arg) : arg))

/** The loader's own warning about PM2's `deploy` section (`pmfx start` prints it too); nothing else may be said. */
const PM2_DEPLOY_WARNING = /^warning deploy is ignored: /

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("examples/export", () => {
  for (const { dir, args } of exampleExports) {
    it(`examples/export/${dir} is what \`pmfx export ${args.join(" ")}\` writes, with no warning`, () => {
      const out = path.join(sandbox.dir, dir)
      const result = sandbox.pmfx(["export", ...absolute(args), "-o", out])
      expect(result.code).toBe(0)
      const warnings = result.stderr.split("\n").filter((line) => line.trim() !== "" && !PM2_DEPLOY_WARNING.test(line))
      expect(warnings).toEqual([])
      if (process.env.PMFX_UPDATE_EXPORT_EXAMPLES === "1") {
        fs.rmSync(path.join(committed, dir), { recursive: true, force: true })
        fs.cpSync(out, path.join(committed, dir), { recursive: true })
      }
      expect(filesUnder(path.join(committed, dir))).toEqual(filesUnder(out))
    })
  }

  for (const target of ["kubernetes", "compose", "systemd"]) {
    it(`exports the same ${target} files from ecosystem.json, .yaml, .toml and .config.mjs`, () => {
      const outputs = ["ecosystem.json", "ecosystem.yaml", "ecosystem.toml", "ecosystem.config.mjs"].map((file) => {
        const result = sandbox.pmfx(["export", target, path.join(examples, file)])
        expect({ file, code: result.code, stderr: result.stderr }).toEqual({ file, code: 0, stderr: "" })
        return result.stdout.split(file).join("<file>")
      })
      for (const output of outputs.slice(1)) expect(output).toBe(outputs[0])
    })
  }
})
