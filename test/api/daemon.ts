/**
 * Runs the built daemon (`pmfx daemon`, test/support/daemonCommand.ts) in a fresh temporary
 * `PMFX_HOME` and talks HTTP to it over its unix socket, as the CLI does. Teardown stops it with
 * `POST /daemon/kill`; if that does not end it, the daemon is killed and so is the process group of
 * every app pid the tests saw.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { daemonCommand } from "../support/daemonCommand"
import { isAlive, sleep } from "../support/processes"

/**
 * An app that stays up doing nothing: `sleep`, whose start costs ~1 ms of CPU where Node's costs
 * ~40 ms (docs/benchmarks.md, "The test suite, sixth pass"). A caller that gives `args` gets Node
 * with those arguments, as before.
 */
export const idleApp = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ...("args" in extra ? { script: process.execPath } : { script: "sleep", args: ["infinity"] }),
  ...extra
})

export interface Reply {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** The body parsed as JSON when it is JSON, else the raw text. */
  readonly body: any
  readonly raw: string
}

export interface RequestOptions {
  /** Give up after this long (the socket is destroyed). */
  readonly timeoutMs?: number
}

export interface Daemon {
  readonly home: string
  readonly socket: string
  readonly child: ChildProcess
  readonly pid: number
  /** Everything the daemon wrote to stdout and stderr (for failure messages). */
  readonly output: () => string
  /**
   * One HTTP request on the socket. An object body is sent as JSON with its length; a string or
   * Buffer body is sent as is, with only the headers given.
   */
  readonly request: (
    method: string,
    urlPath: string,
    body?: unknown,
    headers?: Record<string, string>,
    options?: RequestOptions
  ) => Promise<Reply>
  /** Resolves with the exit code once the daemon process has exited. */
  readonly exited: Promise<number | null>
  /** App pids seen in any answer (for the fallback cleanup). */
  readonly appPids: Set<number>
  /** Stops the daemon (kill, then SIGKILL) and, unless `keepHome`, removes its home. */
  readonly stop: (options?: { readonly keepHome?: boolean }) => Promise<void>
}

/** Polls `check` until it returns a truthy value; throws after `timeoutMs`. */
export const eventually = async <A>(
  check: () => Promise<A | undefined | false> | A | undefined | false,
  what: string,
  timeoutMs = 30_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last === undefined ? "" : `: ${String(last)}`}`)
    await sleep(50)
  }
}

/** The process group of a live pid, or undefined. */
const processGroupOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return Number(fields[2])
  } catch {
    return undefined
  }
}

/** Collects the `pid` of every process row (an object with `pid`, `status` and `restarts`) in an answer. */
export const collectAppPids = (value: unknown, into: Set<number>): void => {
  const pending: Array<unknown> = [value]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== "object" || next === null) continue
    const record = next as Record<string, unknown>
    if (typeof record.pid === "number" && "status" in record && "restarts" in record) into.add(record.pid)
    pending.push(...Object.values(record))
  }
}

/** Where a request goes: the daemon's unix socket, or a TCP host and port. */
export type Target = { readonly socketPath: string } | { readonly host: string; readonly port: number }

/**
 * One HTTP request to `target`. An object body is sent as JSON with its length; a string or
 * Buffer body is sent as is, with only the headers given (plus its length unless chunked).
 */
export const httpRequest = (
  target: Target,
  method: string,
  urlPath: string,
  body: unknown,
  /** A header given as an array is sent once per value (repeated headers). */
  headers: Record<string, string | Array<string>>,
  options: RequestOptions
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    let payload: Buffer | undefined
    const sent: Record<string, string | Array<string>> = { ...headers }
    if (typeof body === "string" || Buffer.isBuffer(body)) {
      payload = Buffer.isBuffer(body) ? body : Buffer.from(body)
    } else if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body))
      sent["content-type"] ??= "application/json"
    }
    if (payload !== undefined && sent["transfer-encoding"] === undefined)
      sent["content-length"] ??= String(payload.length)
    const req = http.request({ ...target, method, path: urlPath, headers: sent, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("error", reject)
      res.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        let parsed: unknown = raw
        if (/json/.test(String(res.headers["content-type"] ?? "")) && raw !== "") {
          try {
            parsed = JSON.parse(raw)
          } catch {
            parsed = raw
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, raw })
      })
    })
    req.on("error", reject)
    req.setTimeout(options.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`${method} ${urlPath}: no answer in ${options.timeoutMs ?? 30_000} ms`))
    )
    if (payload !== undefined) req.write(payload)
    req.end()
  })

/** Makes a fresh home folder (short, so the socket path stays under the ~107-byte limit). */
export const makeHome = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-api-"))

/** Starts a daemon on `home` (a fresh one when not given) and waits until `GET /` answers. */
export const startDaemon = async (
  home: string = makeHome(),
  options: {
    /** `pmfx daemon` options (`--header-timeout 1s` …). */
    readonly args?: ReadonlyArray<string>
    /** A command that runs the daemon (`prlimit --nofile=256 --`): it must exec it, keeping the pid. */
    readonly wrapper?: ReadonlyArray<string>
  } = {}
): Promise<Daemon> => {
  const socket = path.join(home, "pmfx.sock")
  const command = [...(options.wrapper ?? []), ...daemonCommand(options.args)]
  const child = spawn(command[0]!, command.slice(1), {
    env: { PMFX_HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-64 * 1024)
  }
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let hasExited = false
  void exited.then(() => {
    hasExited = true
  })
  const appPids = new Set<number>()

  const request: Daemon["request"] = async (method, urlPath, body, headers = {}, options = {}) => {
    const reply = await httpRequest({ socketPath: socket }, method, urlPath, body, headers, options)
    if (typeof reply.body === "object") collectAppPids(reply.body, appPids)
    return reply
  }

  const stop: Daemon["stop"] = async (options = {}) => {
    if (!hasExited) {
      await request("POST", "/daemon/kill", undefined, {}, { timeoutMs: 5_000 }).catch(() => undefined)
      const stopped = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)])
      if (!stopped) {
        child.kill("SIGKILL")
        await exited
      }
    }
    // Anything still alive that led its own process group is an app the daemon left behind.
    for (const pid of appPids) {
      if (isAlive(pid) && processGroupOf(pid) === pid) {
        try {
          process.kill(-pid, "SIGKILL")
        } catch {
          // gone meanwhile
        }
      }
    }
    if (options.keepHome !== true) fs.rmSync(home, { recursive: true, force: true })
  }

  const deadline = Date.now() + 30_000
  for (;;) {
    if (hasExited) throw new Error(`the daemon exited before answering:\n${output}`)
    const reply = await httpRequest({ socketPath: socket }, "GET", "/", undefined, {}, { timeoutMs: 2_000 }).catch(
      () => undefined
    )
    if (reply?.status === 200) break
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`the daemon did not answer GET / within 30 s:\n${output}`)
    }
    await sleep(50)
  }
  return { home, socket, child, pid: child.pid!, output: () => output, request, exited, appPids, stop }
}
export { isAlive, sleep }
