/**
 * `pmfx startup [--install]` (docs/architecture.md §10): a systemd unit that runs `pmfx daemon` in the foreground
 * as the current user, so the daemon — and with it every app that should run — comes back at boot.
 * Printed by default; `--install` (root only) writes it to /etc/systemd/system and enables it.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DAEMON_MALLOC_TUNABLES } from "../../daemon/daemonEnvironment"
import { daemonArguments } from "../../daemon/daemonNodeFlags"
import { Paths } from "../../shared/Paths"
import { ExitCode } from "../../domain/errors"
import { requireLocal } from "../DaemonTarget"
import { CliExit, failWith } from "../output"
import { badUsage } from "../usage"

/**
 * PM2's `pm2 startup <platform>`: the platforms whose init system is systemd get the same unit
 * (`pmfx startup systemd`, `pmfx startup ubuntu`); the others are refused with what to do instead.
 */
const SYSTEMD_PLATFORMS = new Set([
  "systemd",
  "ubuntu",
  "debian",
  "centos",
  "redhat",
  "rhel",
  "fedora",
  "arch",
  "oracle",
  "amazon",
  "rocky",
  "alma",
  "suse",
  "opensuse"
])

export interface UnitSettings {
  readonly user: string
  readonly group: string
  /** Absolute path of the node executable. */
  readonly node: string
  /** Absolute path of dist/pmfx.cjs. */
  readonly script: string
  readonly home: string
  /** The PATH the daemon gets (apps it restarts at boot find their interpreters with it). */
  readonly path: string
}

/**
 * A value in a unit file: `%` starts a specifier (written `%%`), `$` in ExecStart expands a
 * variable (written `$$`); a value with spaces, quotes or backslashes goes in double quotes.
 */
const unitWord = (value: string, inExec = false): string => {
  let escaped = value.replace(/%/g, "%%")
  if (inExec) escaped = escaped.replace(/\$/g, "$$$$")
  return /[\s"'\\]/.test(escaped) ? `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"` : escaped
}

export const unitName = (user: string): string => `pmfx-${user}.service`

export const renderUnit = (settings: UnitSettings): string =>
  [
    `# ${unitName(settings.user)}, written by \`pmfx startup\`: runs the pmfx daemon of ${settings.user} at boot.`,
    `# Install it with \`sudo pmfx startup --install\`, or save it as /etc/systemd/system/${unitName(settings.user)}`,
    `# and run \`systemctl daemon-reload && systemctl enable --now ${unitName(settings.user)}\`.`,
    "[Unit]",
    `Description=pmfx process manager (${settings.user})`,
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `User=${unitWord(settings.user)}`,
    `Group=${unitWord(settings.group)}`,
    `Environment=${unitWord(`PMFX_HOME=${settings.home}`)}`,
    `Environment=${unitWord(`PATH=${settings.path}`)}`,
    // The daemon's malloc settings (daemonEnvironment.ts); apps do not inherit them.
    `Environment=${unitWord(`GLIBC_TUNABLES=${DAEMON_MALLOC_TUNABLES}`)}`,
    // "-": a home that does not exist yet is created by the daemon, not a reason to fail.
    `WorkingDirectory=-${settings.home.replace(/%/g, "%%")}`, // a path setting: taken whole, never quoted
    "# To serve the API over TCP at boot, add --web (and --host, --port) to ExecStart, with the key in",
    "# a file only root reads (EnvironmentFile=/etc/pmfx/api.env holding PMFX_API_KEY=...): an --api-key",
    "# on the command line shows in `ps`. --config <file> also starts the apps of an ecosystem file.",
    `ExecStart=${[settings.node, ...daemonArguments(settings.script)].map((word) => unitWord(word, true)).join(" ")}`,
    "Restart=on-failure",
    "RestartSec=2",
    // How the unit stops. The apps run in the daemon's control group, each in its own process
    // group. The default KillMode=control-group would SIGTERM every app at the same moment as the
    // daemon, behind its back: the daemon would see them die as crashes, and their kill_timeout
    // and orderly stop would not apply. KillMode=process would let the daemon stop them but leave
    // anything still alive after it exits running outside any supervision. KillMode=mixed sends
    // SIGTERM to the daemon alone — it stops its apps itself (SIGTERM to each group, SIGKILL after
    // kill_timeout) and keeps their desired state for the next boot — and then SIGKILLs whatever is
    // left in the group once the daemon has exited (or TimeoutStopSec ran out). TimeoutStopSec is
    // generous so that apps with a long kill_timeout are not cut short.
    "KillMode=mixed",
    "TimeoutStopSec=120",
    "LimitNOFILE=65536",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    ""
  ].join("\n")

const currentUnitSettings = (home: string): UnitSettings => {
  const user = os.userInfo()
  const group = groupName(user.gid) ?? user.username
  // npm installs `pmfx` as a symlink to dist/pmfx.cjs: the unit names the file itself.
  const script = fs.realpathSync(path.resolve(process.argv[1] ?? __filename))
  return {
    user: user.username,
    group,
    node: process.execPath,
    script,
    home,
    path: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"
  }
}

/** The name of a group id, from /etc/group; undefined when it is not listed. */
const groupName = (gid: number): string | undefined => {
  try {
    for (const line of fs.readFileSync("/etc/group", "utf8").split("\n")) {
      const [name, , id] = line.split(":")
      if (name !== undefined && name !== "" && Number(id) === gid) return name
    }
  } catch {
    // No /etc/group: fall back to the user's name.
  }
  return undefined
}

const fail = (code: number, lines: ReadonlyArray<string>) =>
  Console.error(lines.join("\n")).pipe(Effect.zipRight(Effect.fail(new CliExit({ code }))))

const install = (settings: UnitSettings, unit: string) =>
  Effect.gen(function* () {
    if (typeof process.getuid !== "function" || process.getuid() !== 0) {
      return yield* fail(ExitCode.usage, [
        "NOT_ROOT startup --install writes to /etc/systemd/system and needs root",
        "  suggestion: run `sudo pmfx startup --install`, or `pmfx startup` to print the unit and install it yourself"
      ])
    }
    const name = unitName(settings.user)
    const file = path.join("/etc/systemd/system", name)
    yield* Effect.try(() => {
      fs.mkdirSync(settings.home, { recursive: true, mode: 0o700 })
      fs.writeFileSync(file, unit, { mode: 0o644 })
    }).pipe(
      Effect.catchAll((error) =>
        fail(ExitCode.unexpected, [`WRITE_FAILED could not write ${file}: ${String(error.error)}`])
      )
    )
    yield* Console.log(`wrote ${file}`)
    for (const args of [["daemon-reload"], ["enable", "--now", name]]) {
      const result = spawnSync("systemctl", args, { encoding: "utf8", stdio: ["ignore", "inherit", "pipe"] })
      const error = result.error as NodeJS.ErrnoException | undefined
      if (error?.code === "ENOENT") {
        return yield* fail(ExitCode.unexpected, [
          `SYSTEMCTL_MISSING systemctl was not found: ${file} is written but not enabled`,
          "  suggestion: on a system without systemd, run `pmfx daemon` from your init system instead"
        ])
      }
      if (error !== undefined || result.status !== 0) {
        return yield* fail(ExitCode.unexpected, [
          `SYSTEMCTL_FAILED systemctl ${args.join(" ")} failed${result.stderr ? `: ${result.stderr.trim()}` : ""}`,
          `  suggestion: ${file} is written; fix the problem above and run \`systemctl ${args.join(" ")}\``
        ])
      }
    }
    yield* Console.log(`enabled and started ${name}: the pmfx daemon of ${settings.user} now starts at boot`)
  })

export const startupCommand = Command.make(
  "startup",
  {
    platform: Args.text({ name: "platform" }).pipe(
      Args.withDescription(
        "PM2's init system argument: systemd (or a systemd distribution: ubuntu, centos…), optional"
      ),
      Args.optional
    ),
    install: Options.boolean("install").pipe(
      Options.withDescription("write the unit to /etc/systemd/system, then enable and start it (root only)")
    )
  },
  ({ platform, install: doInstall }) =>
    Effect.gen(function* () {
      if (Option.isSome(platform) && !SYSTEMD_PLATFORMS.has(platform.value.toLowerCase())) {
        return yield* failWith(
          badUsage(
            "platform",
            `pmfx writes systemd units only, not ${JSON.stringify(platform.value)} init scripts`,
            "on a systemd machine run `pmfx startup` (or `pmfx startup systemd`); with another init system (upstart, launchd, openrc, rc.d, SysV), have it run `pmfx daemon` in the foreground with PMFX_HOME set"
          ),
          false
        )
      }
      yield* requireLocal("startup", "it sets up this machine's daemon to start at boot")
      const { home } = yield* Paths
      const settings = currentUnitSettings(home)
      const unit = renderUnit(settings)
      if (doInstall) return yield* install(settings, unit)
      yield* Console.log(unit.trimEnd())
    })
).pipe(
  Command.withDescription(
    "Print a systemd unit that runs the pmfx daemon as the current user at boot; --install writes and enables it (root)"
  )
)
