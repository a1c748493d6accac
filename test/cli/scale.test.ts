/** `pmfx scale <app> <n|+n|-n>` through the built CLI and over HTTP (docs/cli.md, docs/api.md). */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import {
  allOnline,
  eventually,
  fixtures,
  freePorts,
  idleCommand,
  isAlive,
  json,
  list,
  node,
  ok,
  type Row
} from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const healthServer = path.join(fixtures, "health-server.js")
const clusterServer = path.join(fixtures, "cluster-server.js")

interface ScaleAnswer {
  readonly success: true
  readonly from: number
  readonly to: number
  readonly added: ReadonlyArray<number>
  readonly removed: ReadonlyArray<number>
  readonly processes: ReadonlyArray<Row>
}

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

describe("pmfx scale", () => {
  it("adds instances on the next ports, removes the highest first, and saves the count", async () => {
    const base = await freePorts(4)
    ok(sandbox, ["start", `${node} ${healthServer}`, "--name", "api", "--port", `${base}-${base + 3}`])
    const [first] = await allOnline(sandbox, 1)

    const up = json<ScaleAnswer>(ok(sandbox, ["scale", "api", "3", "--json"]))
    expect([up.from, up.to, up.added.length, up.removed]).toEqual([1, 3, 2, []])
    const three = await allOnline(sandbox, 3)
    expect(three.map((row) => [row.instance, row.port])).toEqual([
      [0, String(base)],
      [1, String(base + 1)],
      [2, String(base + 2)]
    ])
    expect(three[0]!.pid).toBe(first!.pid)

    const plus = json<ScaleAnswer>(ok(sandbox, ["scale", "api", "+1", "--json"]))
    expect([plus.from, plus.to]).toEqual([3, 4])
    const four = await allOnline(sandbox, 4)
    expect(four[3]!.port).toBe(String(base + 3))

    // -2: instances 3 and 2 stop (their processes end); 0 and 1 keep running, untouched.
    const down = ok(sandbox, ["scale", "api", "-2"])
    expect(down.stdout).toContain("scaled down from 4 to 2 instances")
    const two = list(sandbox)
    expect(two.map((row) => [row.instance, row.pid])).toEqual([
      [0, four[0]!.pid],
      [1, four[1]!.pid]
    ])
    for (const gone of four.slice(2)) expect(isAlive(gone.pid!)).toBe(false)
    expect(ok(sandbox, ["show", "api"]).stdout).toMatch(/instances\s+2 /)
    const saved = JSON.parse(fs.readFileSync(path.join(sandbox.home, "state.json"), "utf8"))
    expect(JSON.stringify(saved)).toMatch(/"instances":\s*2/)

    // The count survives a daemon restart.
    ok(sandbox, ["daemon", "restart"])
    const after = await allOnline(sandbox, 2)
    expect(after.map((row) => row.instance)).toEqual([0, 1])
  })

  it("scales a stopped app without starting it, and a cluster app's workers on its one port", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "idle"])
    ok(sandbox, ["stop", "idle"])
    ok(sandbox, ["scale", "idle", "2"])
    expect(list(sandbox).map((row) => [row.name, row.status])).toEqual([
      ["idle", "stopped"],
      ["idle", "stopped"]
    ])
    ok(sandbox, ["delete", "idle"])

    const port = await freePorts(1)
    ok(sandbox, ["start", clusterServer, "--name", "web", "-i", "2", "--port", String(port)])
    await allOnline(sandbox, 2)
    ok(sandbox, ["scale", "web", "+1"])
    const rows = await allOnline(sandbox, 3)
    expect(rows.map((row) => row.port)).toEqual([String(port), String(port), String(port)])
    ok(sandbox, ["scale", "web", "1"])
    await eventually(() => expect(list(sandbox).map((row) => row.instance)).toEqual([0]))
  })

  it("over HTTP: POST /api/processes/{name}/scale, with bad input refused by code and field", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "idle"])
    ok(sandbox, ["start", idleCommand, "--name", "other"])
    await allOnline(sandbox, 2)
    const up = await overSocket("POST", "/api/processes/idle/scale", { instances: "+1" })
    expect(up.status).toBe(200)
    expect([up.body.from, up.body.to]).toEqual([1, 2])

    const bad = await overSocket("POST", "/api/processes/idle/scale", { instances: "lots" })
    expect([bad.status, bad.body.error.code, bad.body.error.details.field]).toEqual([400, "BAD_REQUEST", "instances"])
    const noBody = await overSocket("POST", "/api/processes/idle/scale", { count: 2 })
    expect([noBody.status, noBody.body.error.details.field]).toEqual([400, "instances"])
    const zero = await overSocket("POST", "/api/processes/idle/scale", { instances: 0 })
    expect([zero.status, zero.body.error.code, zero.body.error.details.field]).toEqual([
      422,
      "INVALID_CONFIG",
      "idle.instances"
    ])
    const missing = await overSocket("POST", "/api/processes/nope/scale", { instances: 2 })
    expect([missing.status, missing.body.error.code]).toEqual([404, "PROCESS_NOT_FOUND"])
    // An id or a namespace names no one app.
    const byId = await overSocket("POST", "/api/processes/0/scale", { instances: 2 })
    expect([byId.status, byId.body.error.code]).toEqual([404, "PROCESS_NOT_FOUND"])

    // The CLI's exit codes for the same mistakes.
    expect(sandbox.pmfx(["scale", "idle", "two"]).code).toBe(2)
    expect(sandbox.pmfx(["scale", "idle", "-9"]).code).toBe(3)
    expect(sandbox.pmfx(["scale", "nope", "2"]).code).toBe(4)
    expect(sandbox.pmfx(["scale", "idle"]).code).toBe(2)
    // Nothing else changed.
    const rows = await allOnline(sandbox, 3)
    expect(rows.map((row) => row.name)).toEqual(["idle", "other", "idle"])
  })
})
