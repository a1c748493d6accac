/**
 * `pmfx startup`: the printed systemd unit, and `--install`'s refusal without root. `--install`
 * itself is never run here (it would enable a service on the test machine).
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { renderUnit, type UnitSettings } from "../../src/cli/commands/startup"
import { makeSandbox, PMFX_BIN, type Sandbox } from "../support/cli"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const settings: UnitSettings = {
  user: "deploy",
  group: "deploy",
  node: "/usr/bin/node",
  script: "/opt/pmfx/dist/pmfx.cjs",
  home: "/home/deploy/.local/share/pmfx",
  path: "/usr/local/bin:/usr/bin:/bin"
}

/** The value of the first `Key=value` line of a unit. */
const setting = (unit: string, key: string) =>
  unit
    .split("\n")
    .find((line) => line.startsWith(`${key}=`))
    ?.slice(key.length + 1)

describe("pmfx startup", () => {
  it("prints a unit that runs `pmfx daemon` in the foreground as the current user", () => {
    const result = sandbox.pmfx(["startup"])
    expect(result.code).toBe(0)
    const unit = result.stdout
    const user = os.userInfo().username
    expect(unit).toContain("[Unit]")
    expect(unit).toContain("[Service]")
    expect(unit).toContain("[Install]")
    expect(setting(unit, "ExecStart")).toBe(
      `${process.execPath} --max-semi-space-size=2 --optimize-for-size --v8-pool-size=1 --no-turbofan --no-sparkplug --expose-gc ${fs.realpathSync(PMFX_BIN)} daemon`
    )
    expect(setting(unit, "User")).toBe(user)
    expect(unit).toContain(`Environment=PMFX_HOME=${sandbox.home}\n`)
    expect(setting(unit, "Type")).toBe("simple")
    expect(setting(unit, "Restart")).toBe("on-failure")
    expect(setting(unit, "KillMode")).toBe("mixed")
    expect(Number(setting(unit, "TimeoutStopSec"))).toBeGreaterThanOrEqual(60)
    expect(setting(unit, "WantedBy")).toBe("multi-user.target")
    expect(unit).toContain(`pmfx-${user}.service`)
    // Printing needs no daemon.
    expect(fs.existsSync(sandbox.home)).toBe(false)
  })

  it("takes PM2's platform argument: systemd and systemd distributions print the same unit, others are refused (exit 2)", () => {
    const plain = sandbox.pmfx(["startup"])
    for (const platform of ["systemd", "ubuntu", "CentOS"]) {
      const result = sandbox.pmfx(["startup", platform])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toBe(plain.stdout)
    }
    const upstart = sandbox.pmfx(["startup", "upstart"])
    expect(upstart.code).toBe(2)
    expect(upstart.stdout).toBe("")
    expect(upstart.stderr).toBe(
      'BAD_REQUEST platform: pmfx writes systemd units only, not "upstart" init scripts\n' +
        "  suggestion: on a systemd machine run `pmfx startup` (or `pmfx startup systemd`); with another init system (upstart, launchd, openrc, rc.d, SysV), have it run `pmfx daemon` in the foreground with PMFX_HOME set\n"
    )
    // Nothing was started or written.
    expect(fs.existsSync(sandbox.home)).toBe(false)
  })

  it("passes systemd-analyze verify, when it is installed", () => {
    const check = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" })
    if (check.error !== undefined || check.status !== 0) return
    const unit = sandbox.write(`pmfx-${os.userInfo().username}.service`, sandbox.pmfx(["startup"]).stdout)
    const verify = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" })
    expect(verify.stderr).toBe("")
    expect(verify.status).toBe(0)
  })

  it("quotes and escapes what systemd would otherwise read as separators, specifiers or variables", () => {
    const unit = renderUnit({ ...settings, home: "/srv/my apps/100%", node: "/opt/node $x/bin/node" })
    expect(setting(unit, "Environment")).toBe('"PMFX_HOME=/srv/my apps/100%%"')
    expect(setting(unit, "WorkingDirectory")).toBe("-/srv/my apps/100%%")
    expect(setting(unit, "ExecStart")).toBe(
      '"/opt/node $$x/bin/node" --max-semi-space-size=2 --optimize-for-size --v8-pool-size=1 --no-turbofan --no-sparkplug --expose-gc /opt/pmfx/dist/pmfx.cjs daemon'
    )
    expect(renderUnit(settings)).toContain("Environment=PATH=/usr/local/bin:/usr/bin:/bin\n")
    expect(renderUnit(settings)).toContain(
      "Environment=GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=65536\n"
    )
  })

  it("refuses --install without root (exit 2), writing nothing", () => {
    // As root, run the CLI as `nobody`; as anyone else, run it as is.
    const asRoot = process.getuid?.() === 0
    const result = spawnSync(process.execPath, [PMFX_BIN, "startup", "--install"], {
      cwd: os.tmpdir(),
      encoding: "utf8",
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: os.tmpdir(),
        PMFX_HOME: path.join(os.tmpdir(), "pmfx-startup-never-created")
      },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      timeout: 30_000
    })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("needs root")
    expect(result.stderr).toContain("sudo pmfx startup --install")
    expect(result.stdout).toBe("")
    expect(fs.existsSync(path.join(os.tmpdir(), "pmfx-startup-never-created"))).toBe(false)
  })
})
