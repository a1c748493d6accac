/**
 * The CLI's help, usage errors and shell completions (docs/cli.md, "Help", "Exit codes",
 * "pmfx completion"). The catalogue checks read the command definitions directly; the rest runs
 * the built `pmfx` as a user would.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { catalogue, rootEntry } from "../../src/cli/help/catalogue"
import { programModel } from "../../src/cli/help/commandModel"
import { renderCommandHelp } from "../../src/cli/help/renderHelp"
import { commands, pmfx } from "../../src/cli/main"
import { makeSandbox, PMFX_BIN, processesOfHome, type Sandbox } from "../support/cli"
import { hasScript, idleCommand, json, ok } from "./helpers"

const model = programModel(pmfx, commands)
const commandPaths = model.commands.map((command) => command.path.join(" "))
const FILLER = /A user-defined piece of text|This setting is|A true or false value|One of the following|An integer\./

describe("the help catalogue matches the command definitions", () => {
  it("has an entry for every command, and no entry for a command that does not exist", () => {
    const missing = commandPaths.filter((key) => catalogue[key] === undefined)
    expect(
      missing,
      `add an entry for ${missing.map((key) => `"${key}"`).join(", ")} to src/cli/help/catalogue.ts (summary, usage lines, 2-3 examples, what its argument completes to)`
    ).toEqual([])
    const stale = Object.keys(catalogue).filter((key) => !commandPaths.includes(key))
    expect(stale, `src/cli/help/catalogue.ts has entries for commands that do not exist: ${stale.join(", ")}`).toEqual(
      []
    )
  })

  it("gives every command usage lines that begin with pmfx <command>, and two or three examples", () => {
    for (const key of commandPaths) {
      const entry = catalogue[key]!
      for (const line of entry.usage) expect(line, `usage of ${key}`).toMatch(new RegExp(`^pmfx ${key}( |$)`))
      expect(entry.examples.length, `examples of ${key}`).toBeGreaterThanOrEqual(2)
      expect(entry.examples.length, `examples of ${key}`).toBeLessThanOrEqual(3)
      expect(entry.summary.length, `summary of ${key} fits the command list`).toBeLessThanOrEqual(60)
    }
  })

  it("names only options the command has, in its usage lines and examples", () => {
    const globals = model.root.options.flatMap((option) => option.names)
    for (const key of commandPaths) {
      const entry = catalogue[key]!
      const command = model.commands.find((c) => c.path.join(" ") === key)!
      // A command's help also shows its subcommands' usage (`pmfx daemon restart [--json]`).
      const children = model.commands.filter((c) => c.path.join(" ").startsWith(`${key} `))
      const known = new Set([
        ...globals,
        "--help",
        ...[command, ...children].flatMap((c) => c.options.flatMap((o) => o.names))
      ])
      const texts = [...entry.usage, ...entry.examples.map((example) => example.command)]
      for (const text of texts) {
        // (After ` -- `, the words are the app's.)
        for (const flag of text.split(" -- ")[0]!.match(/(?<=^|[\s[])--?[a-z][\w-]*/g) ?? []) {
          expect(
            known.has(flag),
            `"${text}" (catalogue entry "${key}") names ${flag}, which pmfx ${key} does not have`
          ).toBe(true)
        }
      }
    }
    for (const example of rootEntry.examples) expect(example.command).toMatch(/^pmfx /)
  })

  it("has a description for every option and argument, without the library's filler", () => {
    for (const command of [model.root, ...model.commands]) {
      const where = command.path.length === 0 ? "pmfx" : `pmfx ${command.path.join(" ")}`
      for (const option of command.options) {
        expect(option.description, `${where} ${option.names.join("/")}: add Options.withDescription`).not.toBe("")
        expect(option.description).not.toMatch(FILLER)
      }
      for (const arg of command.args) {
        expect(arg.description, `${where} ${arg.name}: add Args.withDescription`).not.toBe("")
        expect(arg.description).not.toMatch(FILLER)
      }
      expect(command.description, `${where}: add Command.withDescription`).not.toBe("")
    }
  })
})

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const expectReadableHelp = (text: string, what: string) => {
  expect(text, what).toMatch(/\nUsage:\n {2}pmfx /)
  expect(text, what).not.toMatch(/\$ /)
  expect(text, what).not.toMatch(FILLER)
  expect(text, what).not.toContain("--wizard")
  expect(text, what).not.toContain("--log-level")
  expect(text, what).not.toContain("--completions")
  expect(text, what).not.toMatch(/\u001b\[/)
  const long = text.split("\n").filter((line) => line.length > 80)
  expect(long, `${what}: lines over 80 columns`).toEqual([])
}

describe("pmfx --help", () => {
  it("lists every command with its summary, the global options and examples, in 80 columns", () => {
    const result = sandbox.pmfx(["--help"])
    expect(result.code).toBe(0)
    expectReadableHelp(result.stdout, "pmfx --help")
    for (const key of commandPaths)
      expect(result.stdout).toMatch(
        new RegExp(`\\n {2}${key} +${catalogue[key]!.summary.slice(0, 20).replace(/[()]/g, ".")}`)
      )
    expect(result.stdout).toContain("--url <URL>")
    expect(result.stdout).toContain("\nExamples:\n")
    // No command at all, and -h, print the same.
    expect(sandbox.pmfx([]).stdout).toBe(result.stdout)
    expect(sandbox.pmfx(["-h"]).stdout).toBe(result.stdout)
    expect(sandbox.pmfx(["help"]).stdout).toBe(result.stdout)
    // `pmfx help <command>` is the command's help.
    const logs = sandbox.pmfx(["help", "logs"])
    expect(logs.code).toBe(0)
    expect(logs.stdout).toContain("pmfx logs — ")
    // An alias, asked either way, is its command's help.
    expect(sandbox.pmfx(["help", "ls"]).stdout).toContain("pmfx list — ")
    expect(result.stdout.replace(/\s+/g, " ")).toContain(" (also: ls, l, ps, jlist, prettylist)")
  })

  it("prints each command's help: usage, one entry per option with its description, examples", () => {
    // Every command's help, as the CLI renders it for a pipe (in-process: a spawn per command is slow).
    for (const key of commandPaths) {
      const command = model.commands.find((c) => c.path.join(" ") === key)!
      const text = renderCommandHelp(model, command, catalogue[key], 80)
      expectReadableHelp(text, `pmfx ${key} --help`)
      expect(text).toContain(`\n  pmfx ${key}`)
      expect(text).toContain("\nExamples:\n")
      for (const example of catalogue[key]!.examples) expect(text).toContain(example.command.slice(0, 40))
      for (const option of command.options)
        expect(text, `${key} --help shows ${option.names.at(-1)}`).toContain(`  ${option.names.join(", ")}`)
    }
    // The built CLI prints the same; -h anywhere, after the arguments too, is the command's help, and nothing runs.
    const start = sandbox.pmfx(["start", "sleep 100", "--name", "x", "-h"])
    expect(start.code).toBe(0)
    expect(start.stdout.trimEnd()).toBe(
      renderCommandHelp(model, model.commands.find((c) => c.path[0] === "start")!, catalogue.start, 80)
    )
    expect(start.stdout).toContain("\n  pmfx start <command|script|file> [options] [-- <app args>...]")
    expect(start.stdout).toContain("  -i, --instances <n|max>")
    const restart = sandbox.pmfx(["daemon", "restart", "--help"])
    expect(restart.code).toBe(0)
    expectReadableHelp(restart.stdout, "pmfx daemon restart --help")
    expect(restart.stdout).toContain("pmfx daemon restart — ")
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
  })
})

describe.skipIf(!hasScript)("pmfx --help on a terminal (util-linux's script)", () => {
  it("wraps at the terminal's width", () => {
    // `script` gives the command a terminal, here of 60 columns.
    const result = spawnSync(
      "script",
      ["-qec", `stty cols 60; "${process.execPath}" "${PMFX_BIN}" logs --help`, "/dev/null"],
      {
        encoding: "utf8",
        env: { ...process.env, PMFX_HOME: sandbox.home, NO_COLOR: "1" },
        timeout: 30_000
      }
    )
    expect(result.status, result.stderr).toBe(0)
    const lines = result.stdout.replace(/\r/g, "").split("\n")
    expect(lines.some((line) => line.startsWith("  -n, --lines <n>"))).toBe(true)
    expect(lines.filter((line) => line.length > 60)).toEqual([])
    expect(Math.max(...lines.map((line) => line.length))).toBeGreaterThan(50)
  })
})

describe("a bad command line", () => {
  it("an unknown command: exit 2, BAD_REQUEST with the closest command", () => {
    const result = sandbox.pmfx(["restrat", "api"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      "BAD_REQUEST unknown command 'restrat'; did you mean 'restart'?\n  suggestion: run `pmfx restart`, or `pmfx --help` to see every command\n"
    )
    const far = sandbox.pmfx(["frobnicate"])
    expect(far.code).toBe(2)
    expect(far.stderr).toContain("BAD_REQUEST unknown command 'frobnicate'\n")
    // Its help is refused the same way, and a PM2 command pmfx does without says what to do.
    expect(sandbox.pmfx(["strat", "--help"]).stderr).toContain("did you mean 'start'?")
    const unstartup = sandbox.pmfx(["unstartup"])
    expect(unstartup.code).toBe(2)
    expect(unstartup.stderr).toContain("systemctl disable --now")
    // pm2 install pm2-logrotate: rotation is built in, and the message names the settings.
    const install = sandbox.pmfx(["install", "pm2-logrotate"])
    expect(install.code).toBe(2)
    expect(install.stderr).toContain("BAD_REQUEST pmfx has no `install` command\n")
    expect(install.stderr).toContain("max_log_size, max_log_files, compress_logs, rotation_schedule")
    expect(sandbox.pmfx(["set", "pm2-logrotate:max_size", "10M"]).stderr).toContain("set max_log_size")
    for (const word of ["init", "ecosystem"]) {
      const init = sandbox.pmfx([word, "simple"])
      expect(init.code).toBe(2)
      expect(init.stderr).toBe(
        `BAD_REQUEST pmfx has no \`${word}\` command\n  suggestion: pmfx writes no sample file: start from examples/ecosystem.json or docs/configuration.md (a PM2 ecosystem.config.js works as it is), then check it with \`pmfx validate <file>\`\n`
      )
    }
  })

  it("an unknown option: exit 2, BAD_REQUEST naming it with the closest option of that command", () => {
    const result = sandbox.pmfx(["start", "sleep 100", "--nme", "api"])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      "BAD_REQUEST --nme: unknown option for pmfx start; did you mean '--name'?\n  suggestion: run `pmfx start --help` to see its options\n"
    )
    expect(sandbox.pmfx(["logs", "api", "--folow"]).stderr).toContain("did you mean '--follow'?")
    expect(sandbox.pmfx(["daemon", "restart", "--jsn"]).stderr).toContain(
      "unknown option for pmfx daemon restart; did you mean '--json'?"
    )
    // PM2's start options pmfx does without say what to do instead.
    const noDaemon = sandbox.pmfx(["start", "app.js", "--no-daemon"])
    expect(noDaemon.code).toBe(2)
    expect(noDaemon.stderr).toBe(
      "BAD_REQUEST --no-daemon: PM2's option is not one of pmfx start\n  suggestion: pmfx runs apps in the foreground with `pmfx-runtime <file|script>` (a container's entry point, docs/containers.md), or `pmfx daemon --config <file>` (under systemd)\n"
    )
    expect(JSON.parse(sandbox.pmfx(["start", "app.js", "--no-vizion", "--json"]).stdout).error.details).toEqual({
      field: "--no-vizion",
      reason: "PM2's option is not one of pmfx start",
      suggestion: "PM2's --no-vizion has no counterpart in pmfx (it collects no git or APM data): drop it"
    })
    expect(sandbox.pmfx(["start", "app.js", "-f"]).stderr).toContain("`pmfx restart <name>`")
    // A command's own option written before the command word: where it goes, with the line fixed.
    const before = sandbox.pmfx(["--json", "stop", "api"])
    expect(before.code).toBe(2)
    expect(before.stderr).toBe(
      "BAD_REQUEST --json: is an option of pmfx stop, and goes after the command word\n  suggestion: run `pmfx stop api --json`\n"
    )
    expect(sandbox.pmfx(["--lines", "5", "logs", "my api", "--", "x"]).stderr).toContain(
      "suggestion: run `pmfx logs 'my api' --lines 5 -- x`"
    )
    expect(sandbox.pmfx(["-f", "delete", "all"]).stderr).toContain("run `pmfx delete all -f`")
    const wizard = sandbox.pmfx(["list", "--wizard"])
    expect(wizard.code).toBe(2)
    expect(wizard.stderr).toContain("BAD_REQUEST --wizard: unknown option")
    // Nothing ran: no daemon was started by any of these.
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
  })

  it("with --json: the API's error shape on stdout, nothing on stderr", () => {
    const unknown = sandbox.pmfx(["list", "--json", "--jsno"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe("")
    expect(JSON.parse(unknown.stdout)).toEqual({
      success: false,
      error: {
        code: "BAD_REQUEST",
        message: "--jsno: unknown option for pmfx list; did you mean '--json'?",
        details: {
          field: "--jsno",
          reason: "unknown option for pmfx list; did you mean '--json'?",
          suggestion: "run `pmfx list --help` to see its options"
        }
      }
    })
    const value = sandbox.pmfx(["logs", "api", "--lines", "many", "--json"])
    expect(value.code).toBe(2)
    expect(json<{ error: { code: string; details: { field: string; reason: string } } }>(value).error).toMatchObject({
      code: "BAD_REQUEST",
      details: { field: "--lines", reason: "'many' is not an integer" }
    })
    const missing = sandbox.pmfx(["stop", "--json"])
    expect(missing.code).toBe(2)
    expect(json<{ error: { code: string; message: string } }>(missing).error).toMatchObject({
      code: "BAD_REQUEST",
      message: "missing argument <id|name|namespace|all>"
    })
  })
})

/** Runs the bash completion function for a command line typed up to `line` (the last word is being completed). */
const completeInBash = (
  script: string,
  words: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>
): Array<string> => {
  const file = path.join(sandbox.dir, "pmfx.bash")
  fs.writeFileSync(file, script)
  const quoted = [PMFX_BIN, ...words].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ")
  const result = spawnSync(
    "bash",
    [
      "-c",
      `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length}; _pmfx; printf '%s\\n' "\${COMPREPLY[@]}"`,
      "bash",
      file
    ],
    {
      encoding: "utf8",
      env: { ...process.env, ...env },
      cwd: sandbox.dir,
      timeout: 30_000
    }
  )
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.split("\n").filter((line) => line !== "")
}

describe("pmfx completion", () => {
  it("bash: command names, a command's options, choices, and the current app names", () => {
    const script = ok(sandbox, ["completion", "bash"]).stdout
    const env = { PMFX_HOME: sandbox.home }
    expect(completeInBash(script, ["re"], env).sort()).toEqual([
      "reload",
      "reloadLogs",
      "reset",
      "restart",
      "resurrect"
    ])
    expect(completeInBash(script, ["logs", "--f"], env)).toEqual(["--follow"])
    expect(completeInBash(script, ["start", "--exec-mode", ""], env)).toEqual(["fork", "cluster"])
    expect(completeInBash(script, ["daemon", "re"], env)).toEqual(["restart"])
    expect(completeInBash(script, ["--url", "http://h:1", "sto"], env)).toEqual(["stop"])
    // No daemon: no names, and the completion did not start one.
    expect(completeInBash(script, ["stop", ""], env)).toEqual([])
    // restart and reload take an ecosystem file too: the folder's files are offered.
    expect(completeInBash(script, ["restart", ""], env)).toEqual(["pmfx.bash"])
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])

    ok(sandbox, ["start", idleCommand, "--name", "web-api"])
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    // (the home folder is created by the daemon, in the same folder as the script)
    expect(completeInBash(script, ["restart", ""], env)).toEqual(["web-api", "worker", "all", "home", "pmfx.bash"])
    expect(completeInBash(script, ["stop", ""], env)).toEqual(["web-api", "worker", "all"])
    expect(completeInBash(script, ["logs", "w"], env)).toEqual(["web-api", "worker"])
    expect(completeInBash(script, ["stop", "web-api", "--j"], env)).toEqual(["--json"])
  })

  it("--list-names prints the names one per line, and nothing (exit 0) without a daemon", () => {
    const none = sandbox.pmfx(["completion", "--list-names"])
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: "" })
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
  })

  it("zsh and fish: scripts for every command (checked by the shell when it is installed)", () => {
    for (const shell of ["zsh", "fish"]) {
      const result = sandbox.pmfx(["completion", shell])
      expect(result.code).toBe(0)
      for (const key of commandPaths.filter((k) => !k.includes(" ")))
        expect(result.stdout, `${shell} completes ${key}`).toContain(key)
      expect(result.stdout).toContain("completion --list-names")
      const installed = spawnSync(shell, ["--version"], { encoding: "utf8" })
      if (installed.status === 0) {
        const file = path.join(sandbox.dir, `pmfx.${shell}`)
        fs.writeFileSync(file, result.stdout)
        const check = spawnSync(shell, ["-n", file], { encoding: "utf8" })
        expect(check.status, check.stderr).toBe(0)
      }
    }
    expect(sandbox.pmfx(["completion", "tcsh"]).code).toBe(2)
  })
})
