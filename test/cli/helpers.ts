/** Helpers for the CLI tests that run apps through a sandbox's daemon. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { expect } from "vitest"
import { type CliResult, PMFX_BIN, type Sandbox } from "../support/cli"
import { isAlive, sleep } from "../support/processes"
import { randomPortBase } from "../support/ports"
import { requestSync } from "../support/syncRequest"

export const fixtures = path.resolve(__dirname, "../fixtures")
export const node = process.execPath

/**
 * A long-running app that does nothing: `sleep`, not Node, where the test is about pmfx and not
 * about the app (a Node start is ~40 ms of CPU, `sleep`'s ~1 ms; docs/benchmarks.md, "The test
 * suite, sixth pass"). Like the Node one it ends at SIGTERM.
 */
export const idleCommand = "sleep infinity"

/** The same as a Node program, for a test about what pmfx does with Node (interpreter arguments). */
export const nodeIdleCommand = `${node} -e "setInterval(() => {}, 1000)"`

export interface Row {
  readonly id: number
  readonly name: string
  readonly namespace: string
  readonly instance: number
  readonly status: string
  readonly pid: number | null
  readonly port: string | null
  readonly restarts: number
  readonly health_status: string
}

/** Parses a command's JSON output, failing the test with its stderr when it is not JSON. */
export const json = <A = Array<Row>>(result: CliResult): A => {
  try {
    return JSON.parse(result.stdout) as A
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
  }
}

/** Runs a command that must succeed. */
export const ok = (
  sandbox: Sandbox,
  args: ReadonlyArray<string>,
  env?: Readonly<Record<string, string>>
): CliResult => {
  const result = sandbox.pmfx(args, env)
  if (result.code !== 0)
    throw new Error(`pmfx ${args.join(" ")} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
  return result
}

/**
 * The sandbox's rows, as `pmfx list --json` prints them. Its fast path is `GET /api/processes`
 * printed as is (src/cli/fastList.ts); the helper sends that request itself, without a Node
 * start-up per look (tests poll it). With no daemon answering it runs the CLI, which starts one.
 */
export const list = (sandbox: Sandbox): Array<Row> => {
  const reply = requestSync(path.join(sandbox.home, "pmfx.sock"), "GET", "/api/processes")
  if (reply.ok && reply.status === 200) {
    try {
      const rows: unknown = JSON.parse(reply.text)
      if (Array.isArray(rows)) return rows as Array<Row>
    } catch {
      // Not the rows: the CLI below reports what it is.
    }
  }
  return json(ok(sandbox, ["list", "--json"]))
}

/** Polls until `check` holds (an assertion that stops throwing), or fails with its last error. */
export const eventually = async <A>(check: () => A, timeoutMs = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await sleep(100)
    }
  }
}

/**
 * Polls `GET urlPath` on the sandbox daemon's socket until `check` passes on its JSON body: a wait
 * without a CLI start-up per look (~0.2 s of CPU each), before the test asserts the same through
 * the CLI once.
 */
export const eventuallyOverSocket = (
  sandbox: Sandbox,
  urlPath: string,
  check: (body: any) => void,
  timeoutMs?: number
): Promise<void> =>
  eventually(() => {
    const reply = requestSync(path.join(sandbox.home, "pmfx.sock"), "GET", urlPath)
    if (!reply.ok) throw new Error(`GET ${urlPath}: ${reply.error}`)
    expect(reply.status, reply.text).toBe(200)
    check(JSON.parse(reply.text))
  }, timeoutMs)

/** Waits until every row of the sandbox is online, and returns them. */
export const allOnline = (sandbox: Sandbox, count: number) =>
  eventually(() => {
    const rows = list(sandbox)
    expect(rows).toHaveLength(count)
    for (const row of rows) expect(row.status).toBe("online")
    return rows
  })

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)))
  })

/** `count` consecutive free ports, at a random place below the ephemeral range (support/ports.ts). */
export const freePorts = async (count: number): Promise<number> => {
  for (;;) {
    const base = randomPortBase(count)
    let free = true
    for (let i = 0; i < count && free; i++) free = await portFree(base + i)
    if (free) return base
  }
}

/** The environment an instance of `write-env.js` wrote into `dir`. */
export const writtenEnv = (dir: string, instance = 0) =>
  eventually(() => JSON.parse(fs.readFileSync(path.join(dir, `${instance}.json`), "utf8")) as Record<string, string>)

/** Whether util-linux `script` is here to run a command on a pseudo-terminal. */
export const hasScript = (() => {
  try {
    return spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0
  } catch {
    return false
  }
})()

/** Runs `pmfx` on a pseudo-terminal (stdin, stdout and stderr all terminals), typing `input`. */
export const pmfxOnTerminal = (
  sandbox: Sandbox,
  args: ReadonlyArray<string>,
  input = ""
): { readonly code: number | null; readonly output: string } => {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
  const command = [process.execPath, PMFX_BIN, ...args].map(quote).join(" ")
  const result = spawnSync("script", ["-qec", command, "/dev/null"], {
    cwd: sandbox.dir,
    encoding: "utf8",
    input,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home, TERM: "xterm" },
    timeout: 30_000
  })
  // Colors are on (a terminal): the assertions read the text without them.
  return { code: result.status, output: result.stdout.replace(/\u001b\[[0-9;]*m/g, "") }
}
export { isAlive, sleep }
