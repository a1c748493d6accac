/**
 * The remote CLI (docs/architecture.md §10): the global `--url` / PMFX_URL with `--api-key` / PMFX_API_KEY drive
 * another daemon's TCP listener (`pmfx web`). The daemon runs in one sandbox ("server"); the CLI
 * runs with the PMFX_HOME of another ("client"), where no daemon may ever start.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { allOnline, eventually, fixtures, json, list, node, ok, type Row, writtenEnv } from "./helpers"
import { freePort } from "./tcp"

const KEY = "full-key-3c91f0a7d2"
const RO_KEY = "read-key-8b24e6c15f"
const WRONG_KEY = "wrong-key-5d7a0e93b1"

let server: Sandbox
let client: Sandbox
beforeEach(() => {
  server = makeSandbox()
  client = makeSandbox()
})
afterEach(() => {
  try {
    client.cleanup()
  } finally {
    server.cleanup()
  }
})

/** The server's daemon with one idle app `svc` from an ecosystem file, and its listener open. */
const serve = async () => {
  const file = server.write(
    "ecosystem.json",
    JSON.stringify({ apps: [{ name: "svc", script: node, args: ["-e", "setInterval(() => {}, 1000)"] }] })
  )
  ok(server, ["start", file])
  await allOnline(server, 1)
  const port = await freePort()
  ok(server, ["web", "--port", String(port), "--api-key", KEY, "--read-only-api-key", RO_KEY])
  return { file, url: `http://127.0.0.1:${port}` }
}

/** Nothing of the client's home exists: no daemon was started (nor even looked for) there. */
const noLocalDaemon = () => expect(fs.existsSync(client.home)).toBe(false)

describe("pmfx --url", () => {
  it("lists, stops and starts the apps of a daemon over its TCP listener, and never starts one here", async () => {
    const { file, url } = await serve()
    const remote = (args: ReadonlyArray<string>) => client.pmfx(["--url", url, "--api-key", KEY, ...args])

    const listed = remote(["list", "--json"])
    expect(listed.code).toBe(0)
    expect(json(listed).map((row) => [row.name, row.status])).toEqual([["svc", "online"]])
    expect(json(listed).map((row) => row.pid)).toEqual(list(server).map((row) => row.pid))

    const stopped = remote(["stop", "svc", "--json"])
    expect(stopped.code).toBe(0)
    expect(json(stopped).map((row) => row.status)).toEqual(["stopped"])
    expect(list(server).map((row) => row.status)).toEqual(["stopped"])

    // `start <file>`: read and validated here, sent as over the socket; the existing app starts.
    const started = remote(["start", file])
    expect(started.code).toBe(0)
    await eventually(() => expect(list(server).map((row) => row.status)).toEqual(["online"]))

    // The global options may also follow the command, anywhere among its own.
    for (const args of [
      ["list", "--json", "--url", url, "--api-key", KEY],
      ["list", "--url", url, "--api-key", KEY, "--json"],
      ["list", `--url=${url}`, "--json", "--api-key", KEY]
    ]) {
      const after = client.pmfx(args)
      expect(after.stderr).toBe("")
      expect(after.code).toBe(0)
      expect(json(after).map((row) => row.status)).toEqual(["online"])
    }
    const status = client.pmfx(["status", "--url", url, "--api-key", KEY])
    expect(status.stderr).toBe("")
    expect(status.code).toBe(0)
    expect(status.stdout).toContain("running pmfx")
    noLocalDaemon()
  })

  it("takes the URL and key from PMFX_URL and PMFX_API_KEY, and does not hand them to the apps it starts", async () => {
    const { url } = await serve()
    const env = { PMFX_URL: url, PMFX_API_KEY: KEY, FROM_THE_CLI: "yes" }
    expect(json(client.pmfx(["list", "--json"], env)).map((row) => row.name)).toEqual(["svc"])

    const out = fs.mkdtempSync(path.join(server.dir, "env-"))
    const created = client.pmfx(
      [
        "start",
        `${node} ${path.join(fixtures, "write-env.js")}`,
        "--name",
        "made-remotely",
        "--env",
        `ENV_OUT_DIR=${out}`,
        "--json"
      ],
      env
    )
    expect(created.code).toBe(0)
    expect(json<Array<Row>>(created).map((row) => row.name)).toEqual(["made-remotely"])
    await eventually(() =>
      expect(list(server).map((row) => [row.name, row.status])).toEqual([
        ["svc", "online"],
        ["made-remotely", "online"]
      ])
    )
    const seen = await writtenEnv(out)
    expect(seen.FROM_THE_CLI).toBe("yes")
    expect(seen.PMFX_API_KEY).toBeUndefined()
    expect(seen.PMFX_URL).toBeUndefined()
    noLocalDaemon()
  })

  it("answers a missing or wrong key and the read-only key on a change with exit 8, never printing a key", async () => {
    const { url } = await serve()

    const wrong = client.pmfx(["--url", url, "--api-key", WRONG_KEY, "list"])
    expect(wrong.code).toBe(8)
    expect(wrong.stderr).toContain("UNAUTHORIZED Invalid or missing API key")
    expect(wrong.stderr).toContain("--api-key or PMFX_API_KEY")
    for (const key of [WRONG_KEY, KEY, RO_KEY]) expect(wrong.stdout + wrong.stderr).not.toContain(key)

    const missing = client.pmfx(["--url", url, "list"])
    expect(missing.code).toBe(8)
    expect(missing.stderr).toContain("give the daemon's API key with --api-key or PMFX_API_KEY")

    const wrongJson = client.pmfx(["--url", url, "--api-key", WRONG_KEY, "stop", "svc", "--json"])
    expect(wrongJson.code).toBe(8)
    expect(json<{ success: boolean; error: { code: string } }>(wrongJson)).toMatchObject({
      success: false,
      error: { code: "UNAUTHORIZED" }
    })

    // The live log stream is refused the same way (it is not the typed client's request).
    const follow = client.pmfx(["--url", url, "--api-key", WRONG_KEY, "logs", "svc", "--follow"])
    expect(follow.code).toBe(8)

    // The read-only key reads, and may not change anything.
    expect(json(client.pmfx(["--url", url, "--api-key", RO_KEY, "list", "--json"])).map((row) => row.name)).toEqual([
      "svc"
    ])
    const forbidden = client.pmfx(["--url", url, "--api-key", RO_KEY, "stop", "svc"])
    expect(forbidden.code).toBe(8)
    expect(forbidden.stderr).toContain("FORBIDDEN Access denied: read-only API key")
    expect(forbidden.stdout + forbidden.stderr).not.toContain(RO_KEY)
    expect(list(server).map((row) => row.status)).toEqual(["online"])
    noLocalDaemon()
  })

  it("is exit 7 when nothing answers at the URL, and exit 2 for a bad URL or a command that works only here", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const unreachable = client.pmfx(["--url", closed, "--api-key", KEY, "list"])
    expect(unreachable.code).toBe(7)
    expect(unreachable.stderr).toContain(`DAEMON_UNREACHABLE cannot reach the daemon at ${closed}`)
    expect(client.pmfx(["list"], { PMFX_URL: closed }).code).toBe(7)

    for (const bad of ["ftp://x", "not a url"]) {
      const refused = client.pmfx(["--url", bad, "list"])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("BAD_REQUEST --url")
    }
    const badEnv = client.pmfx(["list"], { PMFX_URL: "ftp://x" })
    expect(badEnv.code).toBe(2)
    expect(badEnv.stderr).toContain("BAD_REQUEST PMFX_URL")

    for (const command of [["kill"], ["resurrect"], ["web", "--port", "9999"], ["startup"], ["daemon"]]) {
      const refused = client.pmfx(["--url", closed, ...command])
      expect(refused.code, command.join(" ")).toBe(2)
      expect(refused.stderr).toContain(`${command[0]}: works on this machine only`)
    }
    expect(client.pmfx(["kill", "--url", closed]).code).toBe(2)
    const fromEnv = client.pmfx(["kill"], { PMFX_URL: closed })
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.stderr).toContain("with PMFX_URL unset")

    // A global --api-key means a remote's key: without a URL it is a mistake, not a listener key.
    const keyAlone = client.pmfx(["--api-key", KEY, "list"])
    expect(keyAlone.code).toBe(2)
    expect(keyAlone.stderr).not.toContain(KEY)
    noLocalDaemon()
  })
})
