/**
 * A Python app's `print()` lines reach its log at once (docs/configuration.md §5.2): Python
 * block-buffers stdout into a pipe, so without `PYTHONUNBUFFERED` a line waits for 8 KB more —
 * PM2's issue #3076, "PM2 does not capture Python stdout". Real python3, an environment of PATH only.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, withEngine, withTempDir } from "../support/engine"

const hasPython = spawnSync("python3", ["--version"]).status === 0

describe.skipIf(!hasPython)("a Python app's output", () => {
  it.live("print() without flush reaches the log while the app runs; an app's own PYTHONUNBUFFERED stays", () =>
    withTempDir((dir) =>
      withEngine((home) =>
        Effect.gen(function* () {
          const script = path.join(dir, "hello.py")
          fs.writeFileSync(
            script,
            'import os, time\nprint("hello from python", os.environ.get("PYTHONUNBUFFERED"))\nwhile True: time.sleep(1)\n'
          )
          const pm = yield* ProcessManager
          yield* pm.create(
            yield* definitions([
              { name: "py", script },
              { name: "py-own", script, env: { PYTHONUNBUFFERED: "yes" } }
            ]),
            { baseEnv: PATH_ENV }
          )
          const out = (name: string) => {
            const file = path.join(home, "logs", `${name}-0-out.log`)
            return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
          }
          yield* eventually(
            Effect.sync(
              () => out("py").includes("hello from python 1") && out("py-own").includes("hello from python yes")
            ),
            "both lines in the logs while the apps run"
          )
          expect((yield* pm.list()).map((row) => [row.name, row.status])).toEqual([
            ["py", "online"],
            ["py-own", "online"]
          ])
        })
      )
    )
  )
})
