/** The command line of an app (commandLine.ts): node_args / interpreter_args and Node's source maps. */
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pm2AppDefaults } from "../../src/domain/AppDefinition"
import { commandLineFor } from "../../src/supervisor/commandLine"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const scriptFile = (name: string, options: { readonly executable?: boolean; readonly map?: boolean } = {}) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-cmd-"))
  dirs.push(dir)
  const file = path.join(dir, name)
  fs.writeFileSync(file, "#!/usr/bin/env node\n", { mode: options.executable === true ? 0o755 : 0o644 })
  if (options.map === true) fs.writeFileSync(`${file}.map`, "{}")
  return file
}
const app = (settings: Partial<Parameters<typeof commandLineFor>[0]> & { readonly script: string }) => ({
  args: [],
  interpreter: null,
  shell: null,
  interpreter_args: pm2AppDefaults.interpreter_args,
  source_map_support: pm2AppDefaults.source_map_support,
  ...settings
})
const PATH = process.env.PATH

describe("node_args / interpreter_args", () => {
  it("go between node and a .js script (node chosen by the extension)", () => {
    const script = scriptFile("app.js")
    expect(
      commandLineFor(app({ script, args: ["--port", "1"], interpreter_args: ["--max-old-space-size=512"] }), PATH)
    ).toEqual({
      _tag: "Ok",
      command: { file: process.execPath, args: ["--max-old-space-size=512", script, "--port", "1"] }
    })
  })

  it("an executable .mjs runs by its shebang without flags, through node with them", () => {
    const script = scriptFile("app.mjs", { executable: true })
    expect(commandLineFor(app({ script }), PATH)).toEqual({ _tag: "Ok", command: { file: script, args: [] } })
    expect(commandLineFor(app({ script, interpreter_args: ["--trace-warnings"] }), PATH)).toEqual({
      _tag: "Ok",
      command: { file: process.execPath, args: ["--trace-warnings", script] }
    })
  })

  it("go after an explicit interpreter; with script node they go first", () => {
    const script = scriptFile("app.cjs")
    expect(
      commandLineFor(app({ script, interpreter: process.execPath, interpreter_args: ["--inspect=0"] }), PATH)
    ).toMatchObject({
      command: { file: process.execPath, args: ["--inspect=0", script] }
    })
    expect(
      commandLineFor(app({ script: "node", args: ["server.js"], interpreter_args: ["--no-warnings"] }), PATH)
    ).toMatchObject({
      _tag: "Ok",
      command: { args: ["--no-warnings", "server.js"] }
    })
  })

  it("a program that runs on its own cannot take them: the start fails saying so", () => {
    expect(commandLineFor(app({ script: "sleep", args: ["1"], interpreter_args: ["--x"] }), PATH)).toEqual({
      _tag: "Problem",
      problem: {
        reason: "node_args/interpreter_args are flags for an interpreter, but sleep runs on its own",
        suggestion: "put the flags in `args`, or set `interpreter`"
      }
    })
  })
})

describe("a script or command that is not there", () => {
  it("a missing script file is named as a file (pmfx start app.js in the wrong folder); an unknown program as a command", () => {
    expect(commandLineFor(app({ script: "nothere.js" }), PATH)).toEqual({
      _tag: "Problem",
      problem: {
        reason: "no file nothere.js (and no command of that name in PATH)",
        suggestion:
          "check the file's name and the folder you ran pmfx from (a relative script starts from the app's cwd), or give its full path"
      }
    })
    expect(commandLineFor(app({ script: "pmfx-no-such-program" }), PATH)).toEqual({
      _tag: "Problem",
      problem: {
        reason: "command pmfx-no-such-program not found in PATH",
        suggestion: "install it, or give `script` as a path to the file"
      }
    })
  })
})

describe("source_map_support", () => {
  it("true adds --enable-source-maps for Node, once, before interpreter_args", () => {
    const script = scriptFile("app.js")
    expect(commandLineFor(app({ script, source_map_support: true, interpreter_args: ["--x"] }), PATH)).toMatchObject({
      command: { args: ["--enable-source-maps", "--x", script] }
    })
    expect(
      commandLineFor(app({ script, source_map_support: true, interpreter_args: ["--enable-source-maps"] }), PATH)
    ).toMatchObject({
      command: { args: ["--enable-source-maps", script] }
    })
  })

  it("unset: on when <script>.map exists (PM2's detection); false or disable_source_map_support: off", () => {
    const mapped = scriptFile("built.js", { map: true })
    const plain = scriptFile("plain.js")
    expect(commandLineFor(app({ script: mapped }), PATH)).toMatchObject({
      command: { args: ["--enable-source-maps", mapped] }
    })
    expect(commandLineFor(app({ script: plain }), PATH)).toMatchObject({ command: { args: [plain] } })
    expect(commandLineFor(app({ script: mapped, source_map_support: false }), PATH)).toMatchObject({
      command: { args: [mapped] }
    })
  })

  it("never for an interpreter that is not Node", () => {
    const script = scriptFile("job.sh")
    const resolved = commandLineFor(app({ script, source_map_support: true }), PATH)
    expect(resolved._tag === "Ok" && resolved.command.args).toEqual([script])
  })
})
