/** `pmfx monit`: the snapshot without a terminal (pure renderer and command), and the terminal given back on a pseudo-terminal. */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { bar, type MonitFrame, renderMonit, truncateVisible, visibleLength } from "../../src/cli/monitView"
import type { ProcessSummary } from "../../src/domain/ProcessSummary"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { makeSandbox, PMFX_BIN, processesOfHome, type Sandbox } from "../support/cli"
import { createApps } from "./createApp"
import { eventually, hasScript, node } from "./helpers"
import { freePort } from "./tcp"

const row = (fields: Partial<ProcessSummary>): ProcessSummary => ({
  id: 0,
  name: "api",
  namespace: "default",
  instance: 0,
  status: "online",
  pid: 4242,
  port: "4000",
  cpu_usage: 12.5,
  memory_usage: 40 * 1024 * 1024,
  uptime: "0h 3m 2s",
  restarts: 1,
  health_status: "healthy",
  ...fields
})

const frame = (rows: ReadonlyArray<ProcessSummary>, extra: Partial<MonitFrame> = {}): MonitFrame => ({
  rows,
  host: { cpuPercent: 37.4, memoryUsed: 3 * 1024 ** 3, memoryTotal: 8 * 1024 ** 3 },
  time: new Date(2026, 10, 21, 14, 3, 9),
  error: null,
  ...extra
})

const rows = [
  row({}),
  row({ id: 1, instance: 1, pid: 4243, cpu_usage: 150, memory_usage: 80 * 1024 * 1024 }),
  row({
    id: 2,
    name: "worker",
    pid: null,
    status: "stopped",
    cpu_usage: 0,
    memory_usage: 0,
    health_status: "none",
    restarts: 0
  })
]

describe("monit's snapshot", () => {
  it("shows a header with the host's load and a line per process with CPU and memory", () => {
    const lines = renderMonit(frame(rows), { width: 120, height: 30 })
    expect(lines[0]).toMatch(/^pmfx monit\s+2\/3 online\s+host cpu 37%\s+mem 3\.0 GB \/ 8\.0 GB\s+14:03:09$/)
    expect(lines[0]).toHaveLength(120)
    const header = lines.find((line) => line.startsWith("ID"))!
    for (const title of ["Name", "Status", "PID", "CPU", "Memory", "Uptime", "Restarts", "Health"])
      expect(header).toContain(title)
    const api0 = lines.find((line) => line.includes("api[0]"))!
    expect(api0).toMatch(/^ 0\s+api\[0\]\s+online\s+4242\s+12\.5%\s+█*░+\s+40\.0 MB\s+█+░+\s+3m 2s\s+1\s+healthy$/)
    // The CPU bar is full at one whole core and more; the memory bar is relative to the biggest row.
    const api1 = lines.find((line) => line.includes("api[1]"))!
    expect(api1).toContain("150.0%")
    expect(api1).toMatch(/150\.0% {2}█{12} {2}80\.0 MB {2}█{12}/)
    const worker = lines.find((line) => line.includes("worker"))!
    expect(worker).toMatch(/^ 2\s+worker\s+stopped\s+-\s+-\s+-\s+-\s+0\s+-$/)
    for (const line of lines) expect(line).not.toMatch(/\u001b/)
  })

  it("fits any width: drops the least useful columns, then cuts lines", () => {
    for (const width of [200, 100, 80, 60, 40, 20, 5, 1]) {
      const lines = renderMonit(frame(rows), { width, height: 30 })
      for (const line of lines) expect(visibleLength(line)).toBeLessThanOrEqual(width)
    }
    const narrow = renderMonit(frame(rows), { width: 60, height: 30 })
    const header = narrow.find((line) => line.startsWith("ID"))!
    for (const title of ["Name", "Status", "CPU", "Memory"]) expect(header).toContain(title)
    for (const title of ["Health", "Restarts", "PID"]) expect(header).not.toContain(title)
    expect(narrow.find((line) => line.includes("api[1]"))).toContain("80.0 MB")
  })

  it("fits the height, and says how many rows did not fit", () => {
    const many = Array.from({ length: 40 }, (_, i) => row({ id: i, name: `app${i}` }))
    const lines = renderMonit(frame(many), { width: 100, height: 10 })
    expect(lines).toHaveLength(10)
    expect(lines[9]).toBe("… 34 more (make the terminal taller)")
    expect(lines[8]).toMatch(/^ 5\s+app5\s/)
  })

  it("shows why a refresh failed, and an empty table", () => {
    const failed = renderMonit(frame(rows, { error: "the daemon does not answer; retrying" }), {
      width: 100,
      height: 30
    })
    expect(failed[1]).toBe("! the daemon does not answer; retrying")
    const empty = renderMonit(frame([], { host: null }), { width: 100, height: 30 })
    expect(empty[0]).toMatch(/^pmfx monit\s+0\/0 online\s+14:03:09/)
    expect(empty).toContain("no processes: start one with `pmfx start <command|file>`")
  })

  it("colors only when asked, within the same width", () => {
    const lines = renderMonit(frame(rows), { width: 70, height: 30 }, true)
    expect(lines.join("\n")).toContain("\u001b[32monline\u001b[39m")
    for (const line of lines) expect(visibleLength(line)).toBeLessThanOrEqual(70)
  })

  it("draws bars and cuts text without breaking escape sequences", () => {
    expect(bar(0.5, 8)).toBe("████░░░░")
    expect(bar(3, 4)).toBe("████")
    expect(bar(Number.NaN, 3)).toBe("░░░")
    expect(truncateVisible("abcdef", 4)).toBe("abc…")
    expect(truncateVisible("abc", 4)).toBe("abc")
    expect(truncateVisible("\u001b[1mabcdef\u001b[22m", 4)).toBe("\u001b[1mabc…\u001b[0m")
    expect(truncateVisible("abc", 0)).toBe("")
  })
})

describe("pmfx monit", () => {
  let sandbox: Sandbox
  let terminals: Array<ChildProcess> = []
  beforeEach(() => {
    sandbox = makeSandbox()
    terminals = []
  })
  afterEach(() => {
    for (const child of terminals) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    sandbox.cleanup()
  })

  it("prints one snapshot and exits 0 when stdout is no terminal", async () => {
    await createApps(sandbox, { name: "idle", script: node, args: ["-e", "setInterval(() => {}, 1000)"] })
    const result = sandbox.pmfx(["monit"])
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^pmfx monit\s+\d\/1 online/)
    expect(result.stdout).toMatch(/^\s*0\s+idle\s+(online|starting)\s/m)
    expect(result.stdout).not.toMatch(/\u001b/)
    expect(result.stderr).toBe("")
  })

  it("says the daemon is unreachable in a snapshot of a remote that does not answer (exit 7)", () => {
    const result = sandbox.pmfx(["--url", "http://127.0.0.1:1", "monit"])
    expect(result.code).toBe(7)
    expect(result.stderr).toContain("DAEMON_UNREACHABLE")
    expect(result.stdout).toBe("")
  })

  it("prints a snapshot of a remote daemon over --url with its key, and exits 8 on a wrong key", async () => {
    await createApps(sandbox, { name: "far", script: node, args: ["-e", "setInterval(() => {}, 1000)"] })
    const port = await freePort()
    expect(sandbox.pmfx(["web", "--port", String(port), "--api-key", "monit-key"]).code).toBe(0)
    const url = `http://127.0.0.1:${port}`
    const elsewhere = { PMFX_HOME: `${sandbox.dir}/client-home` }
    const seen = sandbox.pmfx(["--url", url, "--api-key", "monit-key", "monit"], elsewhere)
    expect(seen.code, seen.stderr).toBe(0)
    expect(seen.stdout).toMatch(/^\s*0\s+far\s+online\s/m)
    const refused = sandbox.pmfx(["--url", url, "--api-key", "wrong-key", "monit"], elsewhere)
    expect(refused.code).toBe(8)
    expect(refused.stderr).toContain("UNAUTHORIZED")
    expect(refused.stderr).not.toContain("wrong-key")
    expect(fs.existsSync(elsewhere.PMFX_HOME)).toBe(false)
  })

  /** `pmfx monit` on a pseudo-terminal (util-linux `script`), with keys typed when the test wants. */
  const monitOnTerminal = (args: ReadonlyArray<string>) => {
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
    const command = ["stty cols 100 rows 20;", ...[process.execPath, PMFX_BIN, "monit", ...args].map(quote)].join(" ")
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: sandbox.dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home, TERM: "xterm" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    terminals.push(child)
    let output = ""
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    // "close", not "exit": the last bytes (the terminal given back) may still be in the pipe at exit.
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    return {
      type: (keys: string) => child.stdin!.write(keys),
      output: () => output,
      text: () => output.replace(/\u001b\[[0-9;]*m/g, ""),
      exited
    }
  }

  it.runIf(hasScript)(
    "draws on the alternate screen, refreshes, and gives the terminal back when q is typed",
    async () => {
      await createApps(sandbox, { name: "idle", script: node, args: ["-e", "setInterval(() => {}, 1000)"] })
      const monit = monitOnTerminal([])
      await eventually(() => expect(monit.text()).toMatch(/idle\s+online/), 20_000)
      // Refreshed: the header (with its clock) is drawn again.
      await eventually(() => expect(monit.output().split("\u001b[1;1H").length).toBeGreaterThan(3))
      monit.type("q")
      expect(await monit.exited).toBe(0)
      const output = monit.output()
      const enter = output.indexOf("\u001b[?1049h\u001b[?25l")
      const leave = output.lastIndexOf("\u001b[?25h\u001b[?1049l")
      expect(enter).toBeGreaterThanOrEqual(0)
      expect(leave).toBeGreaterThan(enter)
      expect(output.slice(enter, leave)).toContain("pmfx monit")
      // Nothing is drawn after the terminal is given back.
      expect(output.slice(leave + 14).trim()).toBe("")
    }
  )

  it.runIf(hasScript)("gives the terminal back on Ctrl-C and on SIGTERM too (exit 0)", async () => {
    const ctrlC = monitOnTerminal([])
    await eventually(() => expect(ctrlC.output()).toContain("pmfx monit"), 20_000)
    ctrlC.type("\u0003")
    expect(await ctrlC.exited).toBe(0)
    expect(ctrlC.output()).toContain("\u001b[?25h\u001b[?1049l")

    const terminated = monitOnTerminal([])
    await eventually(() => expect(terminated.output()).toContain("pmfx monit"), 20_000)
    // The CLI itself, not `script` or its shell.
    const [pid] = processesOfHome(sandbox.home).filter((p) => {
      const argv = fs.readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")
      return argv[1] === PMFX_BIN && argv[2] === "monit"
    })
    expect(pid).toBeDefined()
    process.kill(pid!, "SIGTERM")
    expect(await terminated.exited).toBe(0)
    expect(terminated.output()).toContain("\u001b[?25h\u001b[?1049l")
  })
})
