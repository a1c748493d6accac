/**
 * `pmfx completion zsh|fish` run by the real shells (Debian's zsh and fish, installed by .ci/run),
 * as test/cli/help.test.ts runs the bash script: command names, a command's options, and the
 * current app names from the daemon (and none, without starting one, when no daemon runs).
 *
 * fish answers `complete -C '<line>'` itself. zsh's completion system needs a terminal, so the
 * script's `_pmfx` function runs in a real zsh with `words`/`CURRENT` set and the three builtins it
 * hands its candidates to (`compadd`, `_describe`, `_files`) printing them instead.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, PMFX_BIN, processesOfHome, type Sandbox } from "../support/cli"
import { idleCommand, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/** A `pmfx` on PATH (the fish script calls it by name), running the built CLI. */
const pmfxOnPath = (): string => {
  const bin = path.join(sandbox.dir, "bin")
  fs.mkdirSync(bin, { recursive: true })
  const wrapper = path.join(bin, "pmfx")
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${PMFX_BIN}" "$@"\n`, { mode: 0o755 })
  return bin
}

const shellEnv = (bin: string) => ({
  ...process.env,
  PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  PMFX_HOME: sandbox.home,
  HOME: sandbox.dir
})

const completeInFish = (script: string, line: string, bin: string): Array<string> => {
  const file = path.join(sandbox.dir, "pmfx.fish")
  fs.writeFileSync(file, script)
  const result = spawnSync("fish", ["--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, file, line], {
    encoding: "utf8",
    env: shellEnv(bin),
    cwd: sandbox.dir,
    timeout: 30_000
  })
  expect(result.status, result.stderr).toBe(0)
  expect(result.stderr).toBe("")
  return result.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split("\t")[0]!)
}

const ZSH_HARNESS = [
  // compadd [flags] -- words...: print the words.
  `compadd() { while (( $# )) && [[ "$1" != "--" ]]; do shift; done; shift; print -rl -- "$@" }`,
  // _describe -t tag 'text' array: print each entry's name (before the first ':').
  `_describe() { local -a entries; entries=( "\${(@P)4}" ); print -rl -- "\${(@)entries%%:*}" }`,
  `_files() { print -r -- "<files>" }`,
  `source "$1"`,
  `shift`,
  `words=( "$@" ); CURRENT=$#words`,
  `_pmfx`
].join("\n")

/** The candidates of `_pmfx` for a command line whose last word is being completed. */
const completeInZsh = (script: string, words: ReadonlyArray<string>, bin: string): Array<string> => {
  const file = path.join(sandbox.dir, "pmfx.zsh")
  fs.writeFileSync(file, script)
  const result = spawnSync("zsh", ["-f", "-c", ZSH_HARNESS, "zsh", file, path.join(bin, "pmfx"), ...words], {
    encoding: "utf8",
    env: shellEnv(bin),
    cwd: sandbox.dir,
    timeout: 30_000
  })
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.split("\n").filter((l) => l !== "")
}

const installed = (shell: string) => spawnSync(shell, ["--version"], { encoding: "utf8" }).status === 0

describe("shell completion in real shells", () => {
  it("fish: command names, options, and the current app names (none without a daemon, and none started)", () => {
    expect(installed("fish"), "fish is installed (.ci/run installs it)").toBe(true)
    const bin = pmfxOnPath()
    const script = ok(sandbox, ["completion", "fish"]).stdout
    expect(completeInFish(script, "pmfx re", bin).sort()).toEqual([
      "reload",
      "reloadLogs",
      "reset",
      "restart",
      "resurrect"
    ])
    expect(completeInFish(script, "pmfx logs --fol", bin)).toEqual(["--follow"])
    expect(completeInFish(script, "pmfx stop ", bin)).toEqual([])
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])

    ok(sandbox, ["start", idleCommand, "--name", "web-api"])
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    expect(completeInFish(script, "pmfx stop ", bin).sort()).toEqual(["all", "web-api", "worker"])
    expect(completeInFish(script, "pmfx logs w", bin).sort()).toEqual(["web-api", "worker"])
    // restart takes an ecosystem file too: the folder's entries come with the names.
    sandbox.write("ecosystem.json", "{}")
    expect(completeInFish(script, "pmfx restart ", bin)).toEqual(
      expect.arrayContaining(["web-api", "worker", "all", "ecosystem.json"])
    )
  })

  it("zsh: command names, options, choices, and the current app names (none without a daemon, and none started)", () => {
    expect(installed("zsh"), "zsh is installed (.ci/run installs it)").toBe(true)
    const bin = pmfxOnPath()
    const script = ok(sandbox, ["completion", "zsh"]).stdout
    expect(
      completeInZsh(script, ["re"], bin)
        .filter((w) => w.startsWith("re"))
        .sort()
    ).toEqual(["reload", "reloadLogs", "reset", "restart", "resurrect"])
    expect(completeInZsh(script, ["logs", "--"], bin)).toContain("--follow")
    expect(completeInZsh(script, ["start", "--exec-mode", ""], bin)).toEqual(["fork", "cluster"])
    expect(completeInZsh(script, ["stop", ""], bin)).toEqual([])
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])

    ok(sandbox, ["start", idleCommand, "--name", "web-api"])
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    expect(completeInZsh(script, ["stop", ""], bin)).toEqual(["web-api", "worker", "all"])
    expect(completeInZsh(script, ["restart", ""], bin)).toEqual(["web-api", "worker", "all", "<files>"])
    expect(completeInZsh(script, ["sendSignal", ""], bin)).toContain("SIGUSR2")
  })
})
