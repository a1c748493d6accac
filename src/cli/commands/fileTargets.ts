/**
 * PM2's `pm2 stop ecosystem.config.js` and `pm2 delete ecosystem.config.js`: among the targets of
 * `stop` and `delete`, an ecosystem file that exists (by its name: `.json`, `.yaml`, `.js`…)
 * stands for the names of its apps, acted on as several targets are (docs/cli.md, "Several
 * targets": an app of the file the daemon does not hold is reported, the others are acted on).
 * The file is read here with this shell's environment, as `start` reads it; a bad file is its own
 * error (exit 3) and nothing is acted on.
 */
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { looksLikeEcosystemFile } from "../../config/ConfigFormat"
import { CallerEnvironment } from "../CallerEnvironment"
import { loadFileForCommand } from "./configOptions"

const isFile = (file: string): boolean => {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

export const expandFileTargets = (targets: ReadonlyArray<string>, json: boolean) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    const expanded: Array<string> = []
    for (const target of targets) {
      const file = path.resolve(caller.cwd, target)
      if (!looksLikeEcosystemFile(target) || !isFile(file)) {
        expanded.push(target)
        continue
      }
      const loaded = yield* loadFileForCommand(file, Option.none(), json)
      expanded.push(...new Set(loaded.apps.map((app) => app.name)))
    }
    return expanded
  })
