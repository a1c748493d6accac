/**
 * `pmfx list --json` is answered by the launcher from the daemon's socket when a daemon runs
 * (`fastList`), and by the full CLI otherwise (which starts the daemon). Both must print the same
 * thing; anything the launcher cannot answer falls through to the CLI's usual behaviour.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, idleCommand, json, ok, type Row } from "./helpers"

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

    const viaLauncher = sandbox.pmfx(["list", "--json"])
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
  })

  it("leaves a PMFX_URL listing to the CLI, which asks the remote (here unreachable: exit 7)", () => {
    ok(sandbox, ["start", idleCommand, "--name", "fast"])
    const remote = sandbox.pmfx(["list", "--json"], { PMFX_URL: "http://127.0.0.1:1" })
    expect(remote.code).toBe(7)
    expect(remote.stdout).toBe("")
    expect(remote.stderr).toContain("DAEMON_UNREACHABLE")
  })
})
