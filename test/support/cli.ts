/** Runs the built `pmfx` binary as a user would, in a fresh temporary `PMFX_HOME`. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const PMFX_BIN = path.resolve(__dirname, "../../dist/pmfx.cjs")

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface Sandbox {
  /** A fresh folder for config files, removed by `cleanup`. */
  readonly dir: string
  /** `PMFX_HOME` for the commands run through this sandbox. */
  readonly home: string
  readonly write: (name: string, content: string) => string
  readonly pmfx: (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => CliResult
  readonly cleanup: () => void
}

export const makeSandbox = (): Sandbox => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-cli-"))
  const home = path.join(dir, "home")
  return {
    dir,
    home,
    write: (name, content) => {
      const file = path.join(dir, name)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, content)
      return file
    },
    pmfx: (args, env = {}) => {
      const result = spawnSync(process.execPath, [PMFX_BIN, ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PMFX_HOME: home, ...env },
        timeout: 30_000
      })
      return { code: result.status, stdout: result.stdout, stderr: result.stderr }
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true })
  }
}
