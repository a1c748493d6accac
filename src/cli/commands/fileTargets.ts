/**
 * PM2's `pm2 stop ecosystem.config.js` and `pm2 delete ecosystem.config.js`: among the targets of
 * `stop` and `delete`, an ecosystem file that exists (by its name: `.json`, `.yaml`, `.js`…)
 * stands for the names of its apps, acted on as several targets are (docs/cli.md, "Several
 * targets": an app of the file the daemon does not hold is reported, the others are acted on).
 * The file is read here with this shell's environment, as `start` reads it; a bad file is its own
 * error (exit 3) and nothing is acted on.
 */
import { Effect, Option } from "effect"
import * as path from "node:path"
import { CallerEnvironment } from "../CallerEnvironment"
import { isEcosystemFile } from "./applyFile"
import { loadFileForCommand } from "./configOptions"

export const expandFileTargets = (targets: ReadonlyArray<string>, json: boolean) =>
  Effect.gen(function* () {
    const caller = yield* CallerEnvironment
    const expanded: Array<string> = []
    for (const target of targets) {
      if (!isEcosystemFile(target, caller.cwd)) {
        expanded.push(target)
        continue
      }
      const loaded = yield* loadFileForCommand(path.resolve(caller.cwd, target), Option.none(), json)
      expanded.push(...new Set(loaded.apps.map((app) => app.name)))
    }
    return expanded
  })
