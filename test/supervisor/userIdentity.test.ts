/** `user`/`group` looked up through NSS with getent (src/supervisor/userIdentity.ts). */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { lookupIdentity, resolveIdentity } from "../../src/supervisor/userIdentity"
import { makeSandbox, type Sandbox } from "../support/cli"
import { eventually, ok } from "../cli/helpers"

const isRoot = process.getuid?.() === 0

describe("lookupIdentity", () => {
  it.effect("finds users and groups by name, with the environment a login sets", () =>
    Effect.gen(function* () {
      expect(yield* lookupIdentity("root", null)).toEqual({
        _tag: "Ok",
        identity: { uid: 0, gid: 0, env: { HOME: "/root", USER: "root", LOGNAME: "root", SHELL: "/bin/bash" } }
      })
      const nobody = yield* lookupIdentity("nobody", "nogroup")
      expect(nobody).toMatchObject({ _tag: "Ok", identity: { uid: 65534, gid: 65534, env: { USER: "nobody" } } })
    })
  )

  it.effect("keeps numeric ids as they are, known or not", () =>
    Effect.gen(function* () {
      expect(yield* lookupIdentity("0", "0")).toMatchObject({
        _tag: "Ok",
        identity: { uid: 0, gid: 0, env: { USER: "root" } }
      })
      expect(yield* lookupIdentity("54321", "54322")).toEqual({
        _tag: "Ok",
        identity: { uid: 54321, gid: 54322, env: {} }
      })
    })
  )

  it.effect("names an unknown user or group (also one that looks like an option)", () =>
    Effect.gen(function* () {
      expect(yield* lookupIdentity("pmfx-no-such-user", null)).toEqual({
        _tag: "Problem",
        field: "user",
        reason: "no user named pmfx-no-such-user"
      })
      expect(yield* lookupIdentity("--help", null)).toEqual({
        _tag: "Problem",
        field: "user",
        reason: "no user named --help"
      })
      expect(yield* lookupIdentity("root", "pmfx-no-such-group")).toEqual({
        _tag: "Problem",
        field: "group",
        reason: "no group named pmfx-no-such-group"
      })
    })
  )

  it.effect("refuses another identity unless the daemon is root", () =>
    Effect.gen(function* () {
      const result = yield* resolveIdentity("nobody", null)
      if (isRoot) expect(result).toMatchObject({ _tag: "Ok", identity: { uid: 65534 } })
      else
        expect(result).toEqual({
          _tag: "Problem",
          field: "user",
          reason: "only a daemon running as root can run apps as another user or group"
        })
      expect(yield* resolveIdentity(null, null)).toEqual({
        _tag: "Ok",
        identity: { uid: undefined, gid: undefined, env: {} }
      })
    })
  )
})

describe("pmfx start --user (root only)", () => {
  let sandbox: Sandbox | undefined
  afterEach(() => sandbox?.cleanup())

  it.skipIf(!isRoot)("runs the app as the user NSS names, and refuses an unknown one with exit 3", async () => {
    const box = (sandbox = makeSandbox())
    ok(box, ["start", "sleep 300", "--name", "as-nobody", "--user", "nobody", "--group", "nogroup", "--cwd", "/"])
    const pid = await eventually(() => {
      const row = (JSON.parse(ok(box, ["list", "--json"]).stdout) as Array<{ pid: number | null }>)[0]!
      expect(row.pid).not.toBeNull()
      return row.pid!
    })
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe("65534")
    expect(/^Gid:\s+(\d+)/m.exec(status)![1]).toBe("65534")
    const bad = box.pmfx(["start", "sleep 300", "--name", "ghost", "--user", "pmfx-no-such-user", "--cwd", "/"])
    expect(bad.code).toBe(3)
    expect(bad.stderr).toContain("no user named pmfx-no-such-user")
    expect(ok(box, ["list", "--json"]).stdout).toContain("as-nobody")
  })
})
if (!isRoot) console.log("skipped: pmfx start --user needs a daemon running as root")
