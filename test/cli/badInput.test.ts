/**
 * Hostile or mistaken input to the CLI (issue 11, defect 11): each case is one error line with its
 * code and exit status — never a stack trace, a schema dump or a spinning process — and the
 * daemon and the apps it runs are untouched.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { type CliResult, makeSandbox, PMFX_BIN, type Sandbox } from "../support/cli"
import { letLoopTurn } from "../support/letLoopTurn"
import { allOnline, idleCommand, isAlive, json, list, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/** What must never reach a user: stack frames, schema dumps, the client's internal words. */
const expectNoInternals = (result: CliResult) => {
  const output = result.stdout + result.stderr
  // (Stack frames are indented four spaces; a CONFIG_PARSE_ERROR's own "  at file:line" two.)
  expect(output).not.toMatch(/^ {4}at /m)
  expect(output).not.toMatch(/Decode error|unexpected answer|└─|Encoded side|RangeError|ReferenceError|ParseError/)
}

interface WireError {
  readonly success: false
  readonly error: { readonly code: string; readonly message: string; readonly details: Record<string, unknown> }
}

/**
 * Runs a command that must fail with `code` and exit status `exit`, and returns its `--json` error;
 * with `human`, the text form is run and checked too (one line and a suggestion, no internals).
 */
const failsWith = (
  args: ReadonlyArray<string>,
  code: string,
  exit: number,
  env?: Readonly<Record<string, string>>,
  human = false
): WireError => {
  if (human) {
    const text = sandbox.pmfx(args, env)
    expect(text.code, `pmfx ${args.join(" ")}: ${text.stderr}`).toBe(exit)
    // One line, then where (a file's line) and the suggestion; INVALID_CONFIG lists each problem below.
    if (code === "INVALID_CONFIG")
      expect(text.stderr).toMatch(new RegExp(`^${code} [^\n]+\n(.*\n)*    suggestion: [^\n]+\n$`))
    else expect(text.stderr).toMatch(new RegExp(`^${code} [^\n]+\n(  at [^\n]+\n)?  suggestion: [^\n]+\n$`))
    expectNoInternals(text)
  }
  const machine = sandbox.pmfx([...args, "--json"], env)
  expect(machine.code, `pmfx ${args.join(" ")} --json: ${machine.stderr}`).toBe(exit)
  expectNoInternals(machine)
  const wire = json<WireError>(machine)
  expect(wire.error.code).toBe(code)
  return wire
}

/** For the tests that run the CLI a dozen times: generous on a loaded 2-core machine. */
const MANY_COMMANDS = 180_000

const deep = (n: number, open: string, close: string, inner = "") => open.repeat(n) + inner + close.repeat(n)

describe("ecosystem files that would exhaust the parser", () => {
  it("a billion-laughs YAML file is CONFIG_PARSE_ERROR (exit 3) naming the file, the line of the first alias and the limit", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (const [name, previous] of [
      ["b", "a"],
      ["c", "b"],
      ["d", "c"],
      ["e", "d"],
      ["f", "e"],
      ["g", "f"],
      ["h", "g"]
    ]) {
      lines.push(`${name}: &${name} [${new Array(9).fill(`*${previous}`).join(",")}]`)
    }
    const file = sandbox.write("laughs.yaml", `${lines.join("\n")}\napps: [{name: x, script: sleep}]\n`)
    for (const command of ["validate", "start", "show"]) {
      const wire = failsWith([command, file], "CONFIG_PARSE_ERROR", 3, undefined, command === "validate")
      expect(wire.error.details).toEqual({ file, line: 2, column: 8, suggestion: expect.stringMatching(/aliases/) })
      expect(wire.error.message).toMatch(/aliases .* more than 1000 copies/)
    }
    // Nothing was started for it.
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
  })

  it("a YAML file that reuses an anchor as files normally do still loads", () => {
    const apps = Array.from(
      { length: 20 },
      (_, i) =>
        `  - name: app${i}\n    script: sleep\n    args: ${i === 0 ? '&args ["100"]' : "*args"}\n    env: ${i === 0 ? "&env {A: x}" : "*env"}`
    ).join("\n")
    const file = sandbox.write("anchors.yaml", `apps:\n${apps}\n`)
    const result = ok(sandbox, ["validate", file])
    expect(result.stdout).toContain("20 apps")
  })

  it(
    "50,000 levels of JSON, YAML or TOML nesting (far past the stack) is CONFIG_PARSE_ERROR (exit 3) naming the 32-level limit",
    () => {
      const n = 50_000
      const files = [
        sandbox.write("arrays.json", deep(n, "[", "]")),
        sandbox.write("objects.json", `{"apps":${deep(n, '{"a":', "}", "1")}}`),
        sandbox.write("broken.json", deep(n, "[", "}")),
        sandbox.write("flow.yaml", `apps: ${deep(n, "[", "]")}`),
        sandbox.write(
          "block.yaml",
          `apps:\n${Array.from({ length: 40 }, (_, i) => `${" ".repeat(2 * i + 2)}- `).join("\n")}x\n`
        ),
        sandbox.write("inline.toml", `x = ${deep(n, "[", "]")}`)
      ]
      for (const [i, file] of files.entries()) {
        const wire = failsWith(["validate", file], "CONFIG_PARSE_ERROR", 3, undefined, i === 0)
        expect(wire.error.details.file).toBe(file)
        if (!file.endsWith("broken.json")) expect(wire.error.message, file).toMatch(/32 levels/)
      }
    },
    MANY_COMMANDS
  )

  it("a JavaScript file whose value nests without end (or refers to itself) is CONFIG_PARSE_ERROR (exit 3)", () => {
    const files = [
      sandbox.write(
        "deep.config.js",
        'let v = {}; for (let i = 0; i < 50000; i++) v = { a: v }; module.exports = { apps: [{ name: "x", script: "sleep", env: v }] }'
      ),
      sandbox.write(
        "cycle.config.js",
        'const app = { name: "x", script: "sleep" }; app.self = app; module.exports = { apps: [app] }'
      )
    ]
    for (const file of files) {
      const wire = failsWith(["validate", file], "CONFIG_PARSE_ERROR", 3, undefined, true)
      expect(wire.error.message).toMatch(/nests more than 32 levels/)
    }
  })
})

describe("a PMFX_HOME that cannot be used", () => {
  /** The command must end by itself (a spinning CLI is killed by the timeout: code null). */
  const homeFails = (home: string, reason: string | RegExp) => {
    const wire = failsWith(["list"], "FILE_ERROR", 3, { PMFX_HOME: home }, true)
    expect(wire.error.details).toEqual({
      path: home,
      reason: expect.stringMatching(reason),
      suggestion: expect.stringContaining("PMFX_HOME")
    })
    expect(wire.error.message).toContain(home)
    return wire
  }

  it("a file, or a folder under a file, is FILE_ERROR (exit 3) naming the path", () => {
    const file = sandbox.write("not-a-folder", "x")
    homeFails(file, "ENOTDIR")
    homeFails(path.join(file, "home"), "ENOTDIR")
  })

  it("a path under /proc or /sys fails with FILE_ERROR (exit 3) instead of spinning", () => {
    // A command that spun would be killed by the sandbox's 30 s timeout: its exit status is null.
    for (const home of ["/proc/self", "/proc/1/pmfx-home", "/sys/kernel/pmfx-home"]) homeFails(home, "EKERNELFS")
  })

  it("pmfx daemon in the foreground says the same, with exit 3", () => {
    const result = spawnSync(process.execPath, [PMFX_BIN, "daemon"], {
      env: { PATH: process.env.PATH ?? "", PMFX_HOME: "/proc/1/pmfx-home" },
      encoding: "utf8",
      timeout: 30_000
    })
    expect(result.status).toBe(3)
    expect(result.stderr).toMatch(/^pmfx daemon: FILE_ERROR PMFX_HOME \/proc\/1\/pmfx-home cannot be used/)
    expectNoInternals({ code: result.status, stdout: result.stdout, stderr: result.stderr })
  })

  it("a read-only PMFX_HOME is FILE_ERROR (exit 3) with EROFS or EACCES", (ctx) => {
    const readOnly = path.join(sandbox.dir, "read-only")
    fs.mkdirSync(readOnly)
    if (process.getuid?.() === 0) {
      // Root writes through permissions: only a read-only mount refuses it.
      const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", readOnly], { encoding: "utf8" })
      if (mounted.status !== 0) {
        console.log(`skipped: running as root and cannot mount a read-only tmpfs (${mounted.stderr.trim()})`)
        return ctx.skip()
      }
    } else {
      fs.chmodSync(readOnly, 0o555)
    }
    try {
      homeFails(readOnly, /^(EROFS|EACCES)$/)
      homeFails(path.join(readOnly, "home"), /^(EROFS|EACCES)$/)
    } finally {
      if (process.getuid?.() === 0) spawnSync("umount", [readOnly])
      else fs.chmodSync(readOnly, 0o755)
    }
  })
})

describe("files of many apps", () => {
  const appsFile = (name: string, count: number, settings: (i: number) => Record<string, unknown> = () => ({})) =>
    sandbox.write(
      name,
      JSON.stringify({
        apps: Array.from({ length: count }, (_, i) => ({
          name: `app${i}`,
          script: "sleep",
          args: ["1000"],
          ...settings(i)
        }))
      })
    )

  it("3000 apps, or more than 1024 processes in all, is INVALID_CONFIG on apps (exit 3) naming the limit, before any daemon starts", () => {
    const many = appsFile("many.json", 3000)
    for (const command of ["validate", "start"]) {
      const wire = failsWith([command, many], "INVALID_CONFIG", 3, undefined, command === "start")
      expect(wire.error.details).toMatchObject({ field: "apps", value: 3000, file: many })
      expect(wire.error.message).toContain("defines 3000 apps, more than 1024")
      expect(wire.error.details.problems).toHaveLength(1)
    }
    const processes = failsWith(["validate", appsFile("wide.json", 3, () => ({ instances: 400 }))], "INVALID_CONFIG", 3)
    expect(processes.error.details).toMatchObject({ field: "apps", value: 1200 })
    expect(processes.error.message).toContain("1200 processes in all")
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
  })

  it(
    "a file whose definitions pass the 1 MiB request limit starts whole, in one request",
    async () => {
      // 40 apps with 40 KB of environment each: ~1.6 MB of definitions (POST /api/apply takes 8 MiB).
      const file = appsFile("heavy.json", 40, (i) => ({ env: { BIG: "x".repeat(40_000), I: String(i) } }))
      const started = sandbox.pmfx(["start", file, "--json"])
      expect(started.code, started.stderr).toBe(0)
      expect(json<{ success: boolean; processes: Array<unknown> }>(started)).toMatchObject({
        success: true,
        processes: expect.any(Array)
      })
      expect(json<{ processes: Array<unknown> }>(started).processes).toHaveLength(40)
      const rows = await allOnline(sandbox, 40)
      expect(rows.map((row) => row.name).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `app${i}`).sort())
    },
    MANY_COMMANDS
  )

  it(
    "when one app of a big file cannot start (its port is taken), the others start, exit 9 says so, and other apps run on",
    async () => {
      ok(sandbox, ["start", idleCommand, "--name", "keep"])
      const [keep] = await allOnline(sandbox, 1)
      const holder = net.createServer()
      await new Promise<void>((resolve) => holder.listen(0, "0.0.0.0", resolve))
      const port = (holder.address() as net.AddressInfo).port
      try {
        // The last app's port is taken by another program: that app fails with PORT_IN_USE.
        const file = appsFile("heavy.json", 40, (i) => ({
          env: { BIG: "x".repeat(40_000) },
          ...(i === 39 ? { port: String(port) } : {})
        }))
        const result = sandbox.pmfx(["start", file, "--json"])
        expect(result.code, result.stderr).toBe(9)
        const answer = json<{
          success: boolean
          apps: Array<{ name: string; ok: boolean; error?: { code: string; details: { port?: number } } }>
        }>(result)
        expect(answer.success).toBe(false)
        expect(answer.apps.filter((app) => !app.ok)).toEqual([
          expect.objectContaining({
            name: "app39",
            error: expect.objectContaining({ code: "PORT_IN_USE", details: expect.objectContaining({ port }) })
          })
        ])
      } finally {
        holder.close()
      }
      const rows = list(sandbox)
      expect(rows.find((row) => row.name === "keep")).toMatchObject({ status: "online", pid: keep!.pid })
      expect(rows.map((row) => row.name)).not.toContain("app39")
      expect(rows).toHaveLength(40)
    },
    MANY_COMMANDS
  )
})

describe("selectors the daemon cannot hold", () => {
  it(
    "a file path, a /regex/, `..`, `%2F` or `.` given to restart/stop/delete/logs/show is PROCESS_NOT_FOUND (exit 4), and the app that runs is untouched",
    async () => {
      ok(sandbox, ["start", idleCommand, "--name", "keep"])
      const [before] = await allOnline(sandbox, 1)
      const file = sandbox.write("eco.json", JSON.stringify({ apps: [{ name: "keep", script: "sleep" }] }))
      // (restart takes an ecosystem file that exists: `restart eco.json` applies it, see applyFile.test.ts.)
      const selectors = [
        path.join(sandbox.dir, "no-such.json"),
        "./missing.json",
        "../x",
        "a/b",
        "..",
        ".",
        "a%2Fb",
        "a?b#c"
      ]
      for (const selector of selectors) {
        await letLoopTurn()
        const wire = failsWith(["restart", selector], "PROCESS_NOT_FOUND", 4, undefined, selector === selectors[0])
        expect(wire.error.details.process_id, selector).toBe(selector)
        if (selector.includes("/")) expect(wire.error.details.suggestion).toMatch(/name the file's apps/)
      }
      // The other commands that take a selector (show reads a path as a file: `..` there).
      for (const [command, selector] of [
        ["reset", file],
        ["delete", "../x"],
        ["reload", "a%2Fb"],
        ["logs", file],
        ["show", ".."]
      ] as const) {
        await letLoopTurn()
        expect(failsWith([command, selector], "PROCESS_NOT_FOUND", 4).error.details.process_id).toBe(selector)
      }
      // PM2's regular-expression targets (`pm2 stop /^api/`) say what pmfx takes instead.
      for (const [command, selector] of [
        ["stop", "/^ke/"],
        ["restart", "/KEEP/i"]
      ] as const) {
        await letLoopTurn()
        const wire = failsWith([command, selector], "PROCESS_NOT_FOUND", 4, undefined, command === "stop")
        expect(wire.error).toEqual({
          code: "PROCESS_NOT_FOUND",
          message: `no process with id, name or namespace ${JSON.stringify(selector)}: pmfx targets are ids, names, namespaces or all, not regular expressions`,
          details: {
            process_id: selector,
            suggestion:
              "name the apps (pmfx stop api worker: several targets work), or give them one namespace (--namespace, or namespace in the file) and use it"
          }
        })
      }
      // The daemon still answers, and the app kept its process.
      expect(list(sandbox)).toEqual([expect.objectContaining({ name: "keep", status: "online", pid: before!.pid })])
      expect(isAlive(before!.pid!)).toBe(true)
    },
    MANY_COMMANDS
  )
})

describe("answers the CLI cannot read", () => {
  /** The answer to `GET /`, by which the CLI knows a daemon runs (so it starts none of its own). */
  const info = JSON.stringify({
    name: "pmfx",
    version: "0.0.0",
    description: "",
    status: "running",
    endpoints: { processes: "", system: "", status: "", websocket: "" }
  })

  /** A fake daemon on the sandbox's socket that answers every request but `GET /` with `status` and `body`. */
  const fakeDaemon = async (status: number, body: string): Promise<net.Server> => {
    fs.mkdirSync(sandbox.home, { recursive: true })
    const reply = (code: number, text: string) =>
      `HTTP/1.1 ${code} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`
    const server = net.createServer((socket) => {
      socket.once("data", (head: Buffer) => {
        socket.end(head.toString("latin1").startsWith("GET / ") ? reply(200, info) : reply(status, body))
      })
    })
    await new Promise<void>((resolve) => server.listen(path.join(sandbox.home, "pmfx.sock"), resolve))
    return server
  }

  it("a body that is no structured error is one line (exit 1); the details only with PMFX_DEBUG=1", async () => {
    const server = await fakeDaemon(200, '{"surprise": true}')
    try {
      const result = await sandbox.pmfxAsync(["stop", "api"])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(
        /^pmfx: the daemon at .*pmfx\.sock gave an answer this pmfx cannot read\n {2}suggestion: .*PMFX_DEBUG=1/
      )
      expectNoInternals(result)
      const debug = await sandbox.pmfxAsync(["stop", "api"], { PMFX_DEBUG: "1" })
      expect(debug.code).toBe(1)
      expect(debug.stderr).toMatch(/DEBUG/)
      expect(debug.stderr).toContain("surprise")
    } finally {
      server.close()
    }
  })

  it("a structured error with a status the endpoint does not declare is shown as that error, with its exit code", async () => {
    const body = JSON.stringify({
      success: false,
      error: {
        code: "BAD_REQUEST",
        message: "Invalid body: too big",
        details: { field: "body", reason: "too big", suggestion: "send less" }
      }
    })
    const server = await fakeDaemon(413, body)
    try {
      const result = await sandbox.pmfxAsync(["restart", "api"])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/^BAD_REQUEST Invalid body: too big\n {2}suggestion: send less/)
      expectNoInternals(result)
    } finally {
      server.close()
    }
  })

  it("rows the table cannot show: the launcher prints nothing and the CLI reports the answer (exit 1)", async () => {
    // A daemon of another version: a row without `health_status`, another with a pid that is text.
    const row = { id: 0, name: "a", namespace: "default", instance: 0, status: "online", pid: 12, port: null }
    const figures = { cpu_usage: 0, memory_usage: 0, uptime: "0h 0m 1s", restarts: 0 }
    const server = await fakeDaemon(
      200,
      JSON.stringify([
        { ...row, ...figures },
        { ...row, id: 1, pid: "13" }
      ])
    )
    try {
      for (const words of [["list"], ["ls"]]) {
        const result = await sandbox.pmfxAsync(words, { PMFX_DEBUG: "1" })
        expect(result.code, words.join(" ")).toBe(1)
        expect(result.stdout).toBe("")
        // The launcher tried, then left the answer to the CLI, which says what is wrong with it.
        expect(result.stderr).toContain("pmfx: the launcher could not answer from the daemon's socket: the CLI does\n")
        expect(result.stderr).toMatch(/pmfx: the daemon at .*pmfx\.sock gave an answer this pmfx cannot read/)
      }
    } finally {
      server.close()
    }
  })
})
