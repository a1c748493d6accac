/**
 * The plain `pmfx stop <target>` and `pmfx delete <target>` are answered by the launcher from the
 * daemon's socket (src/cli/fastAction.ts), everything else by the full CLI. Both must print the
 * same bytes; an answer the launcher does not take is the CLI's to report, and an action the
 * daemon took is never asked for twice.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { fastActionOf } from "../../src/cli/fastAction"
import { socketPathFor } from "../../src/shared/homePaths"
import { makeSandbox, PMFX_EXECUTABLE, type Sandbox } from "../support/cli"
import { allOnline, eventually, idleCommand, json, list, ok } from "./helpers"
import { ANSWERED, FALLBACK, TO_LAUNCHER } from "./launcherDebug"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const DEBUG = { PMFX_DEBUG: "1" }
/** A built-in @effect/cli option first: not the launcher's form, so the full CLI answers. */
const VIA_CLI = ["--log-level", "info"]

describe("which stop and delete the launcher takes", () => {
  it("takes one plain target with --json (and delete's --force/-f), and leaves every other form to the CLI", () => {
    const taken = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}, terminal = false) =>
      fastActionOf(args, env, terminal)
    expect(taken(["stop", "api"])).toEqual({ verb: "stop", target: "api", json: false })
    expect(taken(["restart", "all", "--json"])).toEqual({ verb: "restart", target: "all", json: true })
    expect(taken(["stop", "--json", "3"])).toEqual({ verb: "stop", target: "3", json: true })
    expect(taken(["del", "all", "-f"], {}, true)).toEqual({ verb: "delete", target: "all", json: false })
    expect(taken(["delete", "all"])).toEqual({ verb: "delete", target: "all", json: false })
    expect(taken(["delete", "worker_2", "--force", "--json"])).toEqual({
      verb: "delete",
      target: "worker_2",
      json: true
    })
    for (const args of [
      ["stop"], // no target: the CLI's usage error
      ["stop", "api", "worker"], // several targets: the CLI reports each
      ["stop", "api", "--force"], // not an option of stop
      ["stop", "api", "--json", "--json"],
      ["stop", "eco.config.js"], // a file stands for its apps
      ["stop", "./api"],
      ["stop", "/^api/"], // PM2's regular expression: the CLI explains
      ["stop", ".."],
      ["stop", "-x"],
      ["delete", "online", "--status"],
      ["restart", "api", "-f"], // not an option of restart
      ["restart", "api", "--port", "3000"],
      ["restart", "api", "--update-env"],
      ["reload", "api"],
      ["list", "api"]
    ])
      expect(taken(args), args.join(" ")).toBeNull()
    // `delete all` asks on a terminal unless --force; a remote daemon is the CLI's.
    expect(taken(["delete", "all"], {}, true)).toBeNull()
    expect(taken(["stop", "api"], { PMFX_URL: "http://127.0.0.1:9615" })).toBeNull()
  })
})

describe("pmfx stop and pmfx delete from the launcher", () => {
  it("print the same bytes as the full CLI, as a table, one line or JSON", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "api", "-i", "2", "--namespace", "web"])
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    await allOnline(sandbox, 3)

    // Stop through the launcher, then again through the CLI: the rows are stopped both times.
    const viaLauncher = sandbox.pmfx(["stop", "api"], DEBUG)
    expect(viaLauncher.code, viaLauncher.stderr).toBe(0)
    expect(viaLauncher.stderr).toBe(TO_LAUNCHER + ANSWERED)
    expect(viaLauncher.stdout.split("\n")[0]).toBe("stopped 2 processes")
    const viaCli = sandbox.pmfx([...VIA_CLI, "stop", "api"])
    expect(viaCli.code, viaCli.stderr).toBe(0)
    expect(viaLauncher.stdout).toBe(viaCli.stdout)
    // By namespace and as JSON, under PM2's name too.
    const jsonViaLauncher = sandbox.pmfx(["stop", "web", "--json"], DEBUG)
    expect(jsonViaLauncher.stderr).toBe(TO_LAUNCHER + ANSWERED)
    const jsonViaCli = sandbox.pmfx([...VIA_CLI, "stop", "web", "--json"])
    expect(jsonViaLauncher.stdout).toBe(jsonViaCli.stdout)
    expect(json(jsonViaLauncher).map((row) => [row.name, row.status])).toEqual([
      ["api", "stopped"],
      ["api", "stopped"]
    ])
    // The other app was left running.
    expect(list(sandbox).find((row) => row.name === "worker")?.status).toBe("online")

    // Delete: one line with the ids, from either path; `del` is PM2's name.
    const ids = Object.fromEntries(list(sandbox).map((row) => [`${row.name}${row.instance}`, row.id]))
    const deleted = sandbox.pmfx(["del", "worker"], DEBUG)
    expect(deleted.stderr).toBe(TO_LAUNCHER + ANSWERED)
    expect(deleted.stdout).toBe(`deleted 1 process (id ${ids["worker0"]})\n`)
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    const worker = await eventually(() => {
      const row = list(sandbox).find((candidate) => candidate.name === "worker")
      expect(row?.status).toBe("online")
      return row!
    })
    expect(sandbox.pmfx([...VIA_CLI, "delete", "worker"]).stdout).toBe(`deleted 1 process (id ${worker.id})\n`)
    // Nothing in that state: both say so.
    const none = sandbox.pmfx(["delete", "errored"], DEBUG)
    expect(none.stderr).toBe(TO_LAUNCHER + ANSWERED)
    expect(none.stdout).toBe("nothing to delete\n")
    expect(sandbox.pmfx([...VIA_CLI, "delete", "errored"]).stdout).toBe("nothing to delete\n")
    // `delete all` with stdin not a terminal asks nothing; its JSON is the CLI's document.
    const all = sandbox.pmfx(["delete", "all", "--json"], DEBUG)
    expect(all.code, all.stderr).toBe(0)
    expect(all.stderr).toBe(TO_LAUNCHER + ANSWERED)
    const document = json<{ success: boolean; message: string; deleted: Array<number> }>(all)
    expect(all.stdout).toBe(`${JSON.stringify(document, null, 2)}\n`)
    expect(Object.keys(document)).toEqual(["success", "message", "deleted"])
    expect(document).toMatchObject({ success: true, message: "deleted 2 processes" })
    expect([...document.deleted].sort()).toEqual([ids["api0"], ids["api1"]].sort())
    expect(list(sandbox)).toEqual([])
    const again = sandbox.pmfx([...VIA_CLI, "delete", "all", "--json"])
    expect(json(again)).toEqual({ success: true, message: "deleted 0 processes", deleted: [] })
  })

  it("leave an unknown target to the CLI, which reports it with its exit code and acts on nothing else", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "api"])
    await allOnline(sandbox, 1)
    const stop = sandbox.pmfx(["stop", "nosuch"], DEBUG)
    expect(stop.code).toBe(4)
    expect(stop.stdout).toBe("")
    expect(stop.stderr.startsWith(TO_LAUNCHER + FALLBACK)).toBe(true)
    expect(stop.stderr).toContain('PROCESS_NOT_FOUND no process with id, name or namespace "nosuch"')
    expect(stop.stderr).toContain(
      "suggestion: list the processes to see their ids, names and namespaces (`pmfx list`, or GET /api/processes)"
    )
    const del = sandbox.pmfx(["delete", "nosuch", "--json"], DEBUG)
    expect(del.code).toBe(4)
    expect(del.stderr).toBe(TO_LAUNCHER + FALLBACK)
    expect(json<{ success: boolean; error: { code: string } }>(del)).toMatchObject({
      success: false,
      error: { code: "PROCESS_NOT_FOUND" }
    })
    // Nothing else was touched.
    expect(list(sandbox).map((row) => [row.name, row.status])).toEqual([["api", "online"]])
    // Several targets are the CLI's from the start.
    const several = sandbox.pmfx(["stop", "api", "nosuch"], DEBUG)
    expect(several.code).toBe(9)
    expect(several.stderr).not.toContain(ANSWERED)
    expect(several.stderr).not.toContain(FALLBACK)
    expect(list(sandbox).map((row) => [row.name, row.status])).toEqual([["api", "stopped"]])
  })

  it("end quietly with their exit code when the reader of their output has gone (| head -1)", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "api"])
    await allOnline(sandbox, 1)
    // Both ends closed before the command writes: its output meets EPIPE.
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(PMFX_EXECUTABLE, ["stop", "api", "--json"], {
        cwd: sandbox.dir,
        // (No PMFX_DEBUG: the shell script's own debug line would meet the closed pipe first.)
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home },
        stdio: ["ignore", "pipe", "pipe"]
      })
      child.stdout.destroy()
      child.stderr.destroy()
      child.on("error", reject)
      child.on("exit", (exitCode) => resolve(exitCode))
    })
    expect(code).toBe(0)
    expect(list(sandbox).map((row) => row.status)).toEqual(["stopped"])
  })

  it("leave a stop with no daemon to the CLI, which starts one", () => {
    const stop = sandbox.pmfx(["stop", "all"], DEBUG)
    expect(stop.stderr.startsWith(TO_LAUNCHER + FALLBACK), stop.stderr).toBe(true)
    expect(stop.code).toBe(0)
    expect(list(sandbox)).toEqual([])
  })
})

/** A server on the sandbox's socket that counts requests and answers each with `respond`. */
const fakeDaemon = async (respond: (request: http.IncomingMessage, response: http.ServerResponse) => void) => {
  fs.mkdirSync(sandbox.home, { recursive: true, mode: 0o700 })
  const requests: Array<string> = []
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    respond(request, response)
  })
  await new Promise<void>((resolve) => server.listen(socketPathFor(sandbox.home), resolve))
  return { requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** Answers `GET /` as a pmfx daemon does (the CLI asks it first), and everything else with `status` and `body`. */
const answering = (status: number, body: string) => (request: http.IncomingMessage, response: http.ServerResponse) => {
  response.writeHead(request.url === "/" ? 200 : status, { "content-type": "application/json" })
  response.end(request.url === "/" ? '{"name":"pmfx"}' : body)
}

describe("pmfx restart from the launcher", () => {
  it("prints what the full CLI prints, and an unknown target's error in the CLI's words and exit code", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "api", "-i", "2"])
    await allOnline(sandbox, 2)
    const before = list(sandbox).map((row) => row.pid)

    const viaLauncher = sandbox.pmfx(["restart", "api"], DEBUG)
    expect(viaLauncher.code, viaLauncher.stderr).toBe(0)
    expect(viaLauncher.stderr).toBe(TO_LAUNCHER + ANSWERED)
    const [headline, header, ...rows] = viaLauncher.stdout.trimEnd().split("\n")
    expect(headline).toBe("restarted 2 processes")
    const viaCli = sandbox.pmfx([...VIA_CLI, "restart", "api"])
    expect(viaCli.code, viaCli.stderr).toBe(0)
    const [cliHeadline, cliHeader, ...cliRows] = viaCli.stdout.trimEnd().split("\n")
    expect([headline, header, rows.length]).toEqual([cliHeadline, cliHeader, cliRows.length])
    // Restarted: new processes, online.
    const after = await eventually(() => {
      const now = list(sandbox)
      expect(now.every((row) => row.status === "online")).toBe(true)
      return now.map((row) => row.pid)
    })
    expect(after.some((pid) => before.includes(pid))).toBe(false)
    // As JSON: the rows, key for key as the CLI prints them.
    const jsonViaLauncher = json(sandbox.pmfx(["restart", "api", "--json"]))
    const jsonViaCli = json(sandbox.pmfx([...VIA_CLI, "restart", "api", "--json"]))
    expect(jsonViaLauncher.map((row) => Object.keys(row))).toEqual(jsonViaCli.map((row) => Object.keys(row)))
    expect(jsonViaLauncher.map((row) => [row.name, row.instance])).toEqual([
      ["api", 0],
      ["api", 1]
    ])

    // An unknown target: answered by the launcher (a restart is never sent twice), as the CLI would.
    const unknown = sandbox.pmfx(["restart", "nosuch"], DEBUG)
    expect(unknown.stderr.startsWith(TO_LAUNCHER)).toBe(true)
    expect(unknown.stderr.endsWith(ANSWERED)).toBe(true)
    expect(unknown.stderr).not.toContain(FALLBACK)
    const launcherError = sandbox.pmfx(["restart", "nosuch"])
    const cliError = sandbox.pmfx([...VIA_CLI, "restart", "nosuch"])
    expect(launcherError.code).toBe(4)
    expect(cliError.code).toBe(4)
    expect(launcherError.stdout).toBe("")
    expect(launcherError.stderr).toBe(cliError.stderr)
    expect(launcherError.stderr).toContain('PROCESS_NOT_FOUND no process with id, name or namespace "nosuch"')
    const launcherJson = sandbox.pmfx(["restart", "nosuch", "--json"])
    const cliJson = sandbox.pmfx([...VIA_CLI, "restart", "nosuch", "--json"])
    expect([launcherJson.code, launcherJson.stderr]).toEqual([4, ""])
    expect(launcherJson.stdout).toBe(cliJson.stdout)
    expect(json<{ error: { code: string } }>(launcherJson).error.code).toBe("PROCESS_NOT_FOUND")
    // The app was restarted only by the requests above.
    expect(list(sandbox).map((row) => row.status)).toEqual(["online", "online"])
  })

  it("prints a daemon's structured error as the CLI does, problems and all, and sends the restart once", async () => {
    const body = JSON.stringify({
      success: false,
      error: {
        code: "INVALID_CONFIG",
        message: "2 problems; first port: is taken",
        // In the schema's order, as the daemon encodes it (domain/errors.ts InvalidConfig).
        details: {
          field: "port",
          value: 3000,
          suggestion: "fix the file",
          problems: [
            { field: "port", value: 3000, message: "is taken", suggestion: "choose another port" },
            { field: "", value: null, message: "no script", suggestion: "give one" }
          ]
        }
      }
    })
    const daemon = await fakeDaemon(answering(422, body))
    try {
      const viaLauncher = await sandbox.pmfxAsync(["restart", "api"])
      expect(daemon.requests).toEqual(["POST /api/processes/api/restart"])
      const viaCli = await sandbox.pmfxAsync([...VIA_CLI, "restart", "api"])
      expect(viaLauncher.code).toBe(3)
      expect(viaCli.code).toBe(3)
      expect(viaLauncher.stderr).toBe(viaCli.stderr)
      expect(viaLauncher.stderr).toContain("  port = 3000\n    is taken\n    suggestion: choose another port")
      const jsonViaLauncher = await sandbox.pmfxAsync(["restart", "api", "--json"])
      const jsonViaCli = await sandbox.pmfxAsync([...VIA_CLI, "restart", "api", "--json"])
      expect(jsonViaLauncher.code).toBe(3)
      expect(jsonViaLauncher.stdout).toBe(jsonViaCli.stdout)
    } finally {
      await daemon.close()
    }
  })

  it("reports an error body it cannot read once (exit 1), never restarting again", async () => {
    const daemon = await fakeDaemon(answering(500, "<html>oops</html>"))
    try {
      const result = await sandbox.pmfxAsync(["restart", "api"])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(
        /^pmfx: the daemon at .* gave an answer this pmfx cannot read\n {2}suggestion: check that the daemon runs this version of pmfx/
      )
      expect(daemon.requests).toEqual(["POST /api/processes/api/restart"])
    } finally {
      await daemon.close()
    }
  })
})

describe("pmfx delete from the launcher: answers it does not expect", () => {
  it("reports a success it cannot read as the CLI does (exit 1), and never sends the delete again", async () => {
    const daemon = await fakeDaemon((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end('{"removed":[0]}')
    })
    try {
      const result = await sandbox.pmfxAsync(["delete", "all"])
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(
        `pmfx: the daemon at ${socketPathFor(sandbox.home)} gave an answer this pmfx cannot read\n`
      )
      expect(result.stderr).toContain("suggestion: check that the daemon runs this version of pmfx")
      expect(daemon.requests).toEqual(["DELETE /api/processes?id=all"])
    } finally {
      await daemon.close()
    }
  })

  it("reports a connection lost before the answer (exit 7), and never sends the stop again", async () => {
    const daemon = await fakeDaemon((request) => request.socket.destroy())
    try {
      const result = await sandbox.pmfxAsync(["stop", "api"])
      expect(result.code).toBe(7)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(
        `DAEMON_UNREACHABLE lost the connection to the daemon on ${socketPathFor(sandbox.home)} before it answered`
      )
      expect(result.stderr).toContain(`suggestion: see ${sandbox.home}/daemon.log`)
      expect(daemon.requests).toEqual(["POST /api/processes/api/stop"])
    } finally {
      await daemon.close()
    }
  })
})
