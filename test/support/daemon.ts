/**
 * A real pmfx daemon for a test: started from the built bundle in a fresh PMFX_HOME, reached over
 * its unix socket, and stopped — with every process it started — when the test ends.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { daemonCommand } from "./daemonCommand"
import { isAlive, sleep } from "./processes"

export interface Reply {
  readonly status: number
  readonly body: any
}

/** One HTTP request over the socket; the body is parsed when it is JSON. */
export const request = (socket: string, method: string, urlPath: string, body?: unknown): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = http.request(
      {
        socketPath: socket,
        path: urlPath,
        method,
        agent: false,
        headers: data === undefined ? {} : { "content-type": "application/json", "content-length": String(data.length) }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let parsed: unknown = text
          try {
            parsed = text === "" ? undefined : JSON.parse(text)
          } catch {
            // Not JSON: keep the text.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      }
    )
    req.on("error", reject)
    req.end(data)
  })

/** Polls `check` until it is true; throws after `timeoutMs`. */
export const waitFor = async (
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      if (await check()) return
    } catch {
      // Not yet.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** Pids of live processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker) && isAlive(pid)
      } catch {
        return false
      }
    })

export interface TestDaemon {
  readonly home: string
  readonly socket: string
  readonly process: () => ChildProcess | undefined
  readonly start: (options?: { readonly foreground?: boolean }) => Promise<ChildProcess>
  readonly call: (method: string, urlPath: string, body?: unknown) => Promise<Reply>
  readonly pid: () => number | undefined
  /** Everything the daemons started by this helper printed (their log). */
  readonly output: () => string
  /** Stops the daemon and everything it started, and removes the home. */
  readonly cleanup: () => Promise<void>
}

export const makeTestDaemon = (): TestDaemon => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-daemon-"))
  const socket = path.join(home, "pmfx.sock")
  const children: Array<ChildProcess> = []
  let printed = ""
  const appPids = new Set<number>()
  const call = async (method: string, urlPath: string, body?: unknown) => {
    const reply = await request(socket, method, urlPath, body)
    // Remember every app pid seen, to make sure none outlives the test.
    const rows: Array<{ pid?: number | null }> = Array.isArray(reply.body) ? reply.body : (reply.body?.processes ?? [])
    for (const row of rows) if (typeof row?.pid === "number") appPids.add(row.pid)
    return reply
  }
  const pid = () => {
    try {
      return Number(fs.readFileSync(path.join(home, "daemon.pid"), "utf8").trim())
    } catch {
      return undefined
    }
  }
  return {
    home,
    socket,
    process: () => children.at(-1),
    call,
    pid,
    output: () => printed,
    start: async () => {
      const [node, ...args] = daemonCommand()
      const child = spawn(node, args, {
        env: { PMFX_HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      })
      child.stdout?.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")))
      child.stderr?.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")))
      children.push(child)
      await waitFor(async () => (await request(socket, "GET", "/")).status === 200, "the daemon to answer")
      return child
    },
    cleanup: async () => {
      try {
        await request(socket, "POST", "/daemon/kill")
      } catch {
        // Not running.
      }
      const daemonPid = pid()
      if (daemonPid !== undefined)
        await waitFor(() => !isAlive(daemonPid), "the daemon to exit", 20_000).catch(() => undefined)
      for (const child of children)
        if (child.pid !== undefined && isAlive(child.pid)) process.kill(child.pid, "SIGKILL")
      for (const app of appPids) {
        try {
          process.kill(-app, "SIGKILL")
        } catch {
          // Gone.
        }
      }
      fs.rmSync(home, { recursive: true, force: true })
    }
  }
}
export { isAlive, sleep }
