/**
 * PM2-style app names (spaces, `/`, `%`, unicode…) end to end through a real daemon: start, list,
 * their log files on disk under the encoded name, logs/restart/stop/delete by the name through
 * the CLI and through HTTP with a percent-encoded `{id}`; and the names that stay refused.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileNameOf } from "../../src/domain/appName"
import { makeSandbox, type Sandbox } from "../support/cli"
import { request } from "../support/daemon"
import { allOnline, eventually, json, list, node, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

/** An app that prints its name once and stays up. */
const says = (name: string) => ({
  name,
  script: node,
  args: ["-e", `console.log("hello from " + ${JSON.stringify(name)}); setInterval(() => {}, 1000)`]
})

const NAMES = ["My API", "api (v2)", "web/admin", "café ☕", "100% done", ".hidden", "worker:1"] as const

const socketOf = (sandbox: Sandbox) => path.join(sandbox.home, "pmfx.sock")
const idPath = (name: string, action = "") => `/api/processes/${encodeURIComponent(name)}${action}`

describe("app names PM2 allows", () => {
  it("start, list, log files, logs, show, restart, stop and delete by such names (CLI and HTTP)", async () => {
    const file = sandbox.write("names.json", JSON.stringify({ apps: NAMES.map(says) }))
    ok(sandbox, ["start", file])
    const rows = await allOnline(sandbox, NAMES.length)
    expect(rows.map((r) => r.name)).toEqual([...NAMES])

    // The log files carry the encoded name; a name valid before keeps its file name.
    expect(fileNameOf("worker:1")).toBe("worker:1")
    const logs = path.join(sandbox.home, "logs")
    for (const name of NAMES) {
      const out = path.join(logs, `${fileNameOf(name)}-0-out.log`)
      await eventually(() => expect(fs.readFileSync(out, "utf8")).toContain(`hello from ${name}`))
    }
    expect(fs.readdirSync(logs).sort()).toEqual(
      expect.arrayContaining([
        "My%20API-0-out.log",
        "api%20%28v2%29-0-out.log",
        "web%2Fadmin-0-out.log",
        "caf%C3%A9%20%E2%98%95-0-out.log",
        "100%25%20done-0-out.log",
        "%2Ehidden-0-out.log",
        "worker:1-0-err.log"
      ])
    )
    expect(fs.readdirSync(path.join(sandbox.home, "pids"))).toContain("My%20API-0.pid")

    // `logs` and `show` by the name.
    expect(ok(sandbox, ["logs", "café ☕", "--lines", "5"]).stdout).toContain("hello from café ☕")
    const shown = json<{ name: string; logs: { out_file: string } }>(ok(sandbox, ["show", "web/admin", "--json"]))
    expect(shown.name).toBe("web/admin")
    expect(shown.logs.out_file).toBe(path.join(logs, "web%2Fadmin-0-out.log"))

    // CLI restart/stop/delete by the name.
    const restarted = json(ok(sandbox, ["restart", "My API", "--json"]))
    expect(restarted.map((r) => r.name)).toEqual(["My API"])
    expect(json(ok(sandbox, ["stop", "api (v2)", "--json"])).map((r) => [r.name, r.status])).toEqual([
      ["api (v2)", "stopped"]
    ])
    ok(sandbox, ["delete", "100% done"])

    // HTTP with the name percent-encoded.
    const socket = socketOf(sandbox)
    const detail = await request(socket, "GET", idPath("café ☕"))
    expect(detail.status).toBe(200)
    expect(detail.body.name).toBe("café ☕")
    expect((await request(socket, "POST", idPath("web/admin", "/restart"))).status).toBe(200)
    const stopped = await request(socket, "POST", idPath(".hidden", "/stop"))
    expect(stopped.status).toBe(200)
    expect(stopped.body.processes.map((p: { name: string; status: string }) => [p.name, p.status])).toEqual([
      [".hidden", "stopped"]
    ])
    expect((await request(socket, "DELETE", idPath("worker:1"))).status).toBe(204)
    const logReply = await request(socket, "GET", `${idPath("My API", "/logs")}?lines=10`)
    expect(logReply.status).toBe(200)
    expect(JSON.stringify(logReply.body)).toContain("hello from My API")

    await eventually(() =>
      expect(list(sandbox).map((r) => [r.name, r.status])).toEqual([
        ["My API", "online"],
        ["api (v2)", "stopped"],
        ["web/admin", "online"],
        ["café ☕", "online"],
        [".hidden", "stopped"]
      ])
    )
  })

  it("refuses the names that stay ambiguous or unprintable, with the field, and nothing else breaks", async () => {
    const bad = ["", "  ", "42", "all", "..", " padded", "tab\there", "x".repeat(101)]
    const file = sandbox.write(
      "bad.json",
      JSON.stringify({ apps: bad.map((name, i) => ({ name, script: node, args: [String(i)] })) })
    )
    const validated = sandbox.pmfx(["validate", file, "--json"])
    expect(validated.code).toBe(3)
    const problems = json<{
      error: { code: string; details: { problems: Array<{ field: string; message: string }> } }
    }>(validated).error
    expect(problems.code).toBe("INVALID_CONFIG")
    expect(problems.details.problems.map((p) => [p.field, p.message])).toEqual([
      ["apps[0].name", "must not be empty"],
      ["apps[1].name", "must not be empty"],
      ["apps[2].name", '"42" cannot be told apart from a numeric process id'],
      ["apps[3].name", '"all" cannot be told apart from the keyword all'],
      ["apps[4].name", '".." cannot be a name: a URL would read it as a folder'],
      ["apps[5].name", "must not start or end with a space"],
      ["apps[6].name", "must not hold control characters (tabs, newlines, escapes)"],
      ["apps[7].name", "is 101 characters long, more than 100"]
    ])

    // Over HTTP: the settings form and the CLI's resolved-definitions form, both INVALID_CONFIG.
    ok(sandbox, ["start", `${node} -e "setInterval(() => {}, 1000)"`, "--name", "keep"])
    await allOnline(sandbox, 1)
    const socket = socketOf(sandbox)
    const settings = await request(socket, "POST", "/api/processes", { name: "line\nbreak", script: node })
    expect(settings.status).toBe(422)
    expect(settings.body.error.code).toBe("INVALID_CONFIG")
    expect(settings.body.error.details.problems.map((p: { field: string }) => p.field)).toEqual(["apps[0].name"])
    const shown = json<{ apps: Array<Record<string, unknown>> }>(
      ok(sandbox, ["show", sandbox.write("one.json", JSON.stringify({ apps: [says("fine")] })), "--json"])
    )
    const definition: Record<string, unknown> = { ...shown.apps[0], name: "all" }
    delete definition.files
    const resolved = await request(socket, "POST", "/api/processes", { definitions: [definition], env: {} })
    expect(resolved.status).toBe(422)
    expect(
      resolved.body.error.details.problems.map((p: { field: string; message: string }) => [p.field, p.message])
    ).toEqual([["definitions[0].name", '"all" cannot be told apart from the keyword all']])
    // The daemon still answers and the other app still runs.
    expect(list(sandbox).map((r) => [r.name, r.status])).toEqual([["keep", "online"]])
  })
})
