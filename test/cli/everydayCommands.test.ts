/**
 * PM2's everyday commands through the built CLI and over HTTP (docs/cli.md): flush, reloadLogs,
 * sendSignal, env, reset, the aliases, and selectors by id, name, namespace and all.
 */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { onTestFinished } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { letLoopTurn } from "../support/letLoopTurn"
import { allOnline, eventually, json, list, node, ok, type Row } from "./helpers"
import { sharedSandbox } from "./sharedSandbox"
import { freePort, httpGet } from "./tcp"

/** The file's tests share one daemon, each with its own folder (sharedSandbox.ts). */
let sandbox: Sandbox
const shared = sharedSandbox()
beforeEach(() => {
  sandbox = shared()
})

const KEY = "full-key-7e1c04b9a2"
const RO_KEY = "read-key-2f6d93a0c8"

/** One HTTP request over the sandbox daemon's unix socket, as any client would make it. */
const overSocket = (method: string, urlPath: string, body?: unknown) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const request = http.request(
      {
        socketPath: path.join(sandbox.home, "pmfx.sock"),
        method,
        path: urlPath,
        headers: { "content-type": "application/json" },
        // A connection of its own: the shared agent would reuse one the daemon may be closing (its
        // keep-alive timeout), and the request fails with EPIPE or ECONNRESET on a loaded machine.
        agent: false
      },
      (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (text += chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: text === "" ? undefined : JSON.parse(text) })
        )
      }
    )
    request.on("error", reject)
    request.end(body === undefined ? undefined : JSON.stringify(body))
  })

/**
 * Three apps: `ticker` and `listener` in namespace `grp`, `loner` in the default one. The ticker
 * logs a line every 100 ms; the listener logs each USR2 it gets.
 */
const startApps = async () => {
  const ticker = sandbox.write("ticker.js", "let n = 0; setInterval(() => console.log(`tick ${n++}`), 100)")
  const listener = sandbox.write(
    "listener.js",
    "process.on('SIGUSR2', () => console.log('got usr2')); process.on('SIGHUP', () => console.log('got hup')); setInterval(() => {}, 1000)"
  )
  const file = sandbox.write(
    "ecosystem.json",
    JSON.stringify({
      apps: [
        {
          name: "ticker",
          script: node,
          args: [ticker],
          namespace: "grp",
          env: { API_KEY: "s3cr3t-value", db_password: "hunter2", PLAIN: "visible" }
        },
        { name: "listener", script: node, args: [listener], namespace: "grp" },
        { name: "loner", script: node, args: ["-e", "setInterval(() => {}, 1000)"] }
      ]
    })
  )
  ok(sandbox, ["start", file])
  return allOnline(sandbox, 3)
}

const logFile = (name: string) => path.join(sandbox.home, "logs", `${name}-0-out.log`)
const linesOf = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")

describe("flush and reloadLogs", () => {
  it("empties one app's files while it keeps writing into them, all with no argument, and reopens moved files", async () => {
    await startApps()
    await eventually(() => expect(linesOf(logFile("ticker")).length).toBeGreaterThan(5))
    fs.writeFileSync(logFile("loner"), "an old line\n")

    const flushed = json<{ files: Array<string> }>(ok(sandbox, ["flush", "ticker", "--json"]))
    expect(flushed.files).toContain(logFile("ticker"))
    expect(flushed.files).not.toContain(logFile("loner"))
    // The writer keeps its descriptor: new lines land at the start of the emptied file, no hole of NULs.
    const after = await eventually(() => {
      const text = fs.readFileSync(logFile("ticker"), "utf8")
      expect(text.length).toBeGreaterThan(0)
      return text
    })
    expect(after.startsWith("\0")).toBe(false)
    expect(after).toMatch(/^\S+ tick \d+\n/)
    expect(linesOf(logFile("loner"))).toEqual(["an old line"])

    ok(sandbox, ["flush"])
    expect(fs.statSync(logFile("loner")).size).toBe(0)
    expect(json<Array<{ message: string }>>(ok(sandbox, ["logs", "loner", "--json"])).length).toBe(0)

    // An outside logrotate moves the file away; reloadLogs opens a new one at the path.
    const moved = `${logFile("ticker")}.1`
    fs.renameSync(logFile("ticker"), moved)
    const reloaded = ok(sandbox, ["reloadLogs"])
    expect(reloaded.stdout).toMatch(/reopened \d+ log files/)
    await eventually(() => expect(linesOf(logFile("ticker")).length).toBeGreaterThan(0))
    const movedSize = fs.statSync(moved).size
    await eventually(() => expect(linesOf(logFile("ticker")).length).toBeGreaterThan(3))
    // The moved file gets nothing more once the old stream has ended.
    expect(fs.statSync(moved).size).toBe(movedSize)

    // HTTP: the same endpoints; an unknown app is PROCESS_NOT_FOUND (exit 4) and nothing changed.
    expect((await overSocket("POST", "/api/processes/grp/flush")).body.files).toContain(logFile("listener"))
    expect((await overSocket("POST", "/api/logs/reload")).status).toBe(200)
    const missing = await overSocket("POST", "/api/processes/nope/flush")
    expect([missing.status, missing.body.error.code]).toEqual([404, "PROCESS_NOT_FOUND"])
    expect(sandbox.pmfx(["flush", "nope"]).code).toBe(4)
    expect(list(sandbox).map((row) => row.status)).toEqual(["online", "online", "online"])
  })
})

describe("sendSignal, env and reset", () => {
  it("signals every instance by name or number, and refuses an unknown signal with BAD_REQUEST field signal", async () => {
    const rows = await startApps()
    const sent = json<{ signalled: Array<number>; signal: string }>(
      ok(sandbox, ["sendSignal", "SIGUSR2", "listener", "--json"])
    )
    expect(sent).toMatchObject({ signal: "SIGUSR2", signalled: [rows[1]!.id] })
    ok(sandbox, ["sendSignal", "1", "listener"])
    await eventually(() =>
      expect(linesOf(logFile("listener")).map((line) => line.split(" ").slice(1).join(" "))).toEqual([
        "got usr2",
        "got hup"
      ])
    )

    const bad = sandbox.pmfx(["sendSignal", "SIGFOO", "listener"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("BAD_REQUEST")
    const badJson = json<{ error: { code: string; details: { field: string } } }>(
      sandbox.pmfx(["sendSignal", "99", "listener", "--json"])
    )
    expect([badJson.error.code, badJson.error.details.field]).toEqual(["BAD_REQUEST", "signal"])
    const http = await overSocket("POST", "/api/processes/listener/signal", { signal: "NOPE" })
    expect([http.status, http.body.error.code, http.body.error.details.field]).toEqual([400, "BAD_REQUEST", "signal"])
    const zero = await overSocket("POST", "/api/processes/listener/signal", { signal: 0 })
    expect([zero.status, zero.body.error.details.field]).toEqual([400, "signal"])
    expect(sandbox.pmfx(["sendSignal", "USR2", "nope"]).code).toBe(4)
    // Nothing was killed by the refused requests.
    expect(list(sandbox).map((row) => [row.pid, row.status])).toEqual(rows.map((row) => [row.pid, "online"]))
  })

  it("prints an instance's environment with secret-looking values masked, unless --show-secrets (never to a read-only key)", async () => {
    // Its own daemon: it opens the daemon's TCP listener.
    const own = makeSandbox()
    onTestFinished(() => own.cleanup())
    sandbox = own
    const rows = await startApps()
    const masked = ok(sandbox, ["env", "ticker"]).stdout
    expect(masked).toContain("API_KEY=***")
    expect(masked).toContain("db_password=***")
    expect(masked).toContain("PLAIN=visible")
    expect(masked).toContain("PMFX_INSTANCE_ID=0")
    expect(masked).not.toContain("s3cr3t-value")
    const shown = json<{ env: Record<string, string>; source: string; masked: Array<string> }>(
      ok(sandbox, ["env", String(rows[0]!.id), "--show-secrets", "--json"])
    )
    expect(shown).toMatchObject({ source: "process", masked: [] })
    expect(shown.env.API_KEY).toBe("s3cr3t-value")

    // A stopped instance: the environment its next start gets.
    ok(sandbox, ["stop", "ticker"])
    const next = json<{ env: Record<string, string>; source: string }>(ok(sandbox, ["env", "ticker", "--json"]))
    expect(next.source).toBe("next_start")
    expect(next.env.PLAIN).toBe("visible")
    expect(next.env.API_KEY).toBe("***")

    // Over TCP: the full key may ask for secrets; the read-only key gets every value masked.
    const port = await freePort()
    ok(sandbox, ["web", "--port", String(port), "--api-key", KEY, "--read-only-api-key", RO_KEY])
    const full = await httpGet(port, "/api/processes/ticker/env?show_secrets=true", { authorization: `Bearer ${KEY}` })
    expect((full.body as { env: Record<string, string> }).env.API_KEY).toBe("s3cr3t-value")
    const readOnly = await httpGet(port, "/api/processes/ticker/env?show_secrets=true", {
      authorization: `Bearer ${RO_KEY}`
    })
    expect(readOnly.status).toBe(200)
    expect(JSON.stringify(readOnly.body)).not.toContain("s3cr3t-value")
    expect(JSON.stringify(readOnly.body)).not.toContain("visible")
    const remote = sandbox.pmfx([
      "--url",
      `http://127.0.0.1:${port}`,
      "--api-key",
      RO_KEY,
      "env",
      "ticker",
      "--show-secrets"
    ])
    expect(remote.code).toBe(0)
    expect(remote.stdout).toContain("API_KEY=***")
    const badFlag = await overSocket("GET", "/api/processes/ticker/env?show_secrets=maybe")
    expect([badFlag.status, badFlag.body.error.details.field]).toEqual([400, "show_secrets"])
    expect(sandbox.pmfx(["env", "nope"]).code).toBe(4)
  })

  it("reset zeroes the restart counters by name, namespace or all", async () => {
    await startApps()
    ok(sandbox, ["restart", "all"])
    ok(sandbox, ["restart", "grp"])
    await allOnline(sandbox, 3)
    expect(list(sandbox).map((row) => row.restarts)).toEqual([2, 2, 1])
    const reset = json<Array<Row>>(ok(sandbox, ["reset", "grp", "--json"]))
    expect(reset.map((row) => [row.name, row.restarts])).toEqual([
      ["ticker", 0],
      ["listener", 0]
    ])
    expect(list(sandbox).map((row) => row.restarts)).toEqual([0, 0, 1])
    expect(
      (await overSocket("POST", "/api/processes/all/reset")).body.processes.map((row: Row) => row.restarts)
    ).toEqual([0, 0, 0])
    expect(sandbox.pmfx(["reset", "nope"]).code).toBe(4)
    expect(list(sandbox).map((row) => row.status)).toEqual(["online", "online", "online"])
  })
})

describe("aliases and selectors", () => {
  it("ls, l, ps, jlist, prettylist, describe and info; every selector takes an id, a name, a namespace or all; a name wins over a namespace", async () => {
    const rows = await startApps()
    // The same table as list (its changing figures aside).
    const firstColumns = (text: string) => text.split("\n").map((line) => line.split(/\s+/).slice(0, 5).join(" "))
    expect(firstColumns(ok(sandbox, ["ls"]).stdout)).toEqual(firstColumns(ok(sandbox, ["list"]).stdout))
    expect(ok(sandbox, ["ps"]).stdout).toContain("listener")
    expect(json(ok(sandbox, ["jlist"])).map((row) => row.name)).toEqual(["ticker", "listener", "loner"])
    expect(ok(sandbox, ["describe", "loner"]).stdout).toContain(`loner id ${rows[2]!.id}`)
    // `pmfx save` (and `dump`): nothing to write, the state is checked and said to be current.
    const saved = ok(sandbox, ["save"])
    expect(
      saved.stdout.startsWith(
        `saved: ${path.join(sandbox.home, "state.json")} holds the current state (3 processes, written 20`
      )
    ).toBe(true)
    expect(saved.stdout).toContain("pmfx resurrect")
    expect(json<{ success: boolean; processes: number; file: string }>(ok(sandbox, ["dump", "--json"]))).toMatchObject({
      success: true,
      processes: 3,
      file: path.join(sandbox.home, "state.json")
    })
    await letLoopTurn()
    // PM2's other names: l, prettylist, info.
    expect(ok(sandbox, ["l"]).stdout).toContain("listener")
    expect(json(ok(sandbox, ["prettylist"])).map((row) => row.name)).toEqual(["ticker", "listener", "loner"])
    expect(ok(sandbox, ["info", "loner"]).stdout).toContain(`loner id ${rows[2]!.id}`)

    await letLoopTurn()
    const names = (result: ReturnType<typeof ok>) => json(result).map((row) => row.name)
    expect(names(ok(sandbox, ["stop", "grp", "--json"]))).toEqual(["ticker", "listener"])
    expect(list(sandbox).map((row) => row.status)).toEqual(["stopped", "stopped", "online"])
    ok(sandbox, ["start", "grp"])
    await allOnline(sandbox, 3)
    await letLoopTurn()
    expect(names(ok(sandbox, ["restart", "grp", "--json"]))).toEqual(["ticker", "listener"])
    expect(
      json<{ processes: Array<Row> }>(ok(sandbox, ["reload", "grp", "--json"])).processes.map((row) => row.name)
    ).toEqual(["ticker", "listener"])
    expect(
      json<Array<{ app: string }>>(ok(sandbox, ["logs", "grp", "--json", "--lines", "5"])).every(
        (entry) => entry.app === "ticker" || entry.app === "listener"
      )
    ).toBe(true)
    expect(names(ok(sandbox, ["restart", String(rows[2]!.id), "--json"]))).toEqual(["loner"])

    await letLoopTurn()
    // An app named like the namespace: the name wins (docs/cli.md, "Selectors").
    ok(sandbox, ["start", `${node} -e "setInterval(() => {}, 1000)"`, "--name", "grp"])
    expect(names(ok(sandbox, ["restart", "grp", "--json"]))).toEqual(["grp"])
    ok(sandbox, ["delete", "grp"])
    expect(list(sandbox).map((row) => row.name)).toEqual(["ticker", "listener", "loner"])
    ok(sandbox, ["delete", "grp"])
    expect(list(sandbox).map((row) => row.name)).toEqual(["loner"])
  })
})
