/**
 * `pmfx list --json` is answered by the launcher from the daemon's socket when a daemon runs
 * (`fastList`), and by the full CLI otherwise (which starts the daemon). Both must print the same
 * thing; anything the launcher cannot answer falls through to the CLI's usual behaviour.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, eventually, idleCommand, json, list, ok, type Row } from "./helpers"
import { ANSWERED, FALLBACK, TO_LAUNCHER } from "./launcherDebug"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/** What does not change between two listings of idle apps. */
const stable = (
  rows: Array<Row & { readonly cpu_usage?: number; readonly memory_usage?: number; readonly uptime?: string }>
) => rows.map(({ cpu_usage: _cpu, memory_usage: _memory, uptime: _uptime, ...rest }) => rest)

describe("pmfx list --json", () => {
  it("prints the same rows, key for key, from the launcher's fast path as from the full CLI", async () => {
    // No daemon yet: the launcher cannot answer, the CLI starts one and prints the (empty) list.
    const first = sandbox.pmfx(["list", "--json"])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe("[]\n")
    ok(sandbox, ["start", idleCommand, "--name", "fast", "-i", "2"])
    await allOnline(sandbox, 2)

    const viaLauncher = sandbox.pmfx(["list", "--json"], { PMFX_DEBUG: "1" })
    expect(viaLauncher.stderr).toBe(TO_LAUNCHER + ANSWERED)
    // The same command with a built-in @effect/cli option first is not the launcher's exact form:
    // the full CLI answers it.
    const viaCli = sandbox.pmfx(["--log-level", "info", "list", "--json"])
    expect(viaCli.code, viaCli.stderr).toBe(0)
    expect(viaLauncher.code).toBe(0)
    expect(viaLauncher.stdout.endsWith("\n")).toBe(true)
    expect(viaLauncher.stdout).toContain('\n  {\n    "id": 0,')
    const launcherRows = json(viaLauncher)
    expect(launcherRows.map((row) => Object.keys(row))).toEqual(json(viaCli).map((row) => Object.keys(row)))
    expect(stable(launcherRows)).toEqual(stable(json(viaCli)))
    // PM2's names for the same listing are answered the same way.
    for (const words of [["jlist"], ["prettylist"], ["ls", "--json"], ["ps", "--json"]]) {
      const alias = sandbox.pmfx(words, { PMFX_DEBUG: "1" })
      expect(alias.stderr, words.join(" ")).toBe(TO_LAUNCHER + ANSWERED)
      expect(stable(json(alias)), words.join(" ")).toEqual(stable(launcherRows))
    }
  })

  it("leaves a PMFX_URL listing to the CLI, which asks the remote (here unreachable: exit 7)", () => {
    ok(sandbox, ["start", idleCommand, "--name", "fast"])
    const remote = sandbox.pmfx(["list", "--json"], { PMFX_URL: "http://127.0.0.1:1" })
    expect(remote.code).toBe(7)
    expect(remote.stdout).toBe("")
    expect(remote.stderr).toContain("DAEMON_UNREACHABLE")
  })
})

describe("pmfx list (the table)", () => {
  it("prints the same table from the launcher's fast path as from the full CLI, under every PM2 name", async () => {
    // No daemon yet: the launcher cannot answer, the CLI starts one and says there is nothing.
    const first = sandbox.pmfx(["list"], { PMFX_DEBUG: "1" })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr.startsWith(TO_LAUNCHER + FALLBACK)).toBe(true)
    expect(first.stdout).toBe("no processes: start one with `pmfx start <command|file>`\n")

    // Stopped rows print no pid, uptime or memory: two listings of them are the same byte for byte.
    ok(sandbox, ["start", idleCommand, "--name", "table", "-i", "2", "--namespace", "jobs"])
    ok(sandbox, ["start", idleCommand, "--name", "other"])
    await allOnline(sandbox, 3)
    ok(sandbox, ["stop", "all"])
    // A built-in @effect/cli option first is not the launcher's exact form: the full CLI answers it.
    const viaCli = sandbox.pmfx(["--log-level", "info", "list"])
    expect(viaCli.code, viaCli.stderr).toBe(0)
    expect(viaCli.stdout.split("\n")[0]).toMatch(/^ID {2}Name {3}Namespace {2}Status {3}PID/)
    for (const word of ["list", "ls", "l", "ps"]) {
      const viaLauncher = sandbox.pmfx([word], { PMFX_DEBUG: "1" })
      expect(viaLauncher.code, word).toBe(0)
      expect(viaLauncher.stderr, word).toBe(TO_LAUNCHER + ANSWERED)
      expect(viaLauncher.stdout, word).toBe(viaCli.stdout)
    }

    // A running row shows its pid and state as the API has them.
    ok(sandbox, ["start", "other"])
    const other = await eventually(() => {
      const row = list(sandbox).find((candidate) => candidate.name === "other")
      expect(row?.status).toBe("online")
      expect(row?.pid).toBeTypeOf("number")
      return row!
    })
    const line = sandbox
      .pmfx(["list"])
      .stdout.split("\n")
      .find((text) => text.includes(" other "))
    expect(line).toMatch(new RegExp(`^2 +other +default +online +${other.pid} `))
  })
})
