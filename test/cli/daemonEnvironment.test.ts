/**
 * The daemon the CLI starts inherits that CLI call's environment: an app created over the API
 * finds `node` through PATH and sees the caller's variables — but never the CLI's connection
 * variables or keys, and never a PMFX_RUN_ID of an app the CLI ran inside.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  DAEMON_MALLOC_TUNABLES,
  daemonEnvironmentForApps,
  environmentForDaemon
} from "../../src/daemon/daemonEnvironment"
import { makeSandbox, type Sandbox } from "../support/cli"
import { request } from "../support/daemon"
import { allOnline, fixtures, ok, writtenEnv } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const environOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((entry) => entry.includes("="))
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)])
  )

describe("the daemon's environment", () => {
  it("comes from the CLI call that starts it; an API-created app resolves node through PATH", async () => {
    const caller = {
      LANG: "C.UTF-8",
      FROM_THE_SHELL: "yes",
      PMFX_API_KEY: "k".repeat(40),
      PMFX_READONLY_API_KEY: "r".repeat(40),
      PMFX_RUN_ID: "0123456789abcdef01234567",
      NODE_OPTIONS: "--max-old-space-size=64"
    }
    // The first command starts the daemon in the background with this environment.
    ok(sandbox, ["list"], caller)
    const daemonPid = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8").trim())
    const daemonEnv = environOf(daemonPid)
    expect(daemonEnv.FROM_THE_SHELL).toBe("yes")
    expect(daemonEnv.PATH).toBe(process.env.PATH)
    expect(daemonEnv.PMFX_HOME).toBe(sandbox.home)
    for (const left of ["PMFX_API_KEY", "PMFX_READONLY_API_KEY", "PMFX_RUN_ID", "NODE_OPTIONS"])
      expect(daemonEnv[left]).toBeUndefined()
    // pmfx's malloc settings for the daemon, unless the caller has its own. glibc parses the
    // variable from a copy and leaves the first setting alone in /proc/<pid>/environ.
    if (process.env.GLIBC_TUNABLES === undefined) {
      expect(daemonEnv.GLIBC_TUNABLES).toMatch(/^glibc\.malloc\./)
      expect(DAEMON_MALLOC_TUNABLES.startsWith(daemonEnv.GLIBC_TUNABLES ?? "none")).toBe(true)
    }

    const out = fs.mkdtempSync(path.join(sandbox.dir, "env-"))
    const created = await request(path.join(sandbox.home, "pmfx.sock"), "POST", "/api/processes", {
      name: "envy",
      script: "node",
      args: [path.join(fixtures, "write-env.js")],
      env: { ENV_OUT_DIR: out, FROM_THE_SHELL: "overridden" }
    })
    expect(created.status).toBe(201)
    await allOnline(sandbox, 1)
    const env = await writtenEnv(out)
    expect(env.HOME).toBe(sandbox.dir)
    expect(env.LANG).toBe("C.UTF-8")
    // The app's env is layered on top.
    expect(env.FROM_THE_SHELL).toBe("overridden")
    expect(env.PMFX_API_KEY).toBeUndefined()
    expect(env.PMFX_RUN_ID).not.toBe(caller.PMFX_RUN_ID)
    // The daemon's own malloc settings are not the app's.
    expect(env.GLIBC_TUNABLES).toBe(process.env.GLIBC_TUNABLES)
  })

  it("keeps a caller's own GLIBC_TUNABLES, for the daemon and for its apps", () => {
    const own = "glibc.malloc.arena_max=2"
    expect(environmentForDaemon({ PATH: "/bin" }, "/h").GLIBC_TUNABLES).toBe(DAEMON_MALLOC_TUNABLES)
    expect(environmentForDaemon({ PATH: "/bin", GLIBC_TUNABLES: own }, "/h").GLIBC_TUNABLES).toBe(own)
    expect(daemonEnvironmentForApps({ GLIBC_TUNABLES: own }).GLIBC_TUNABLES).toBe(own)
    expect(daemonEnvironmentForApps({ GLIBC_TUNABLES: DAEMON_MALLOC_TUNABLES, LANG: "C" })).toEqual({ LANG: "C" })
  })
})
