/**
 * The name an app started as a command gets when `start` is given no `--name` (PM2 names an app
 * after its script the same way).
 */
import * as path from "node:path"
import { fileAppName } from "../config/validateEcosystem"
import { isUsableName } from "../domain/appName"

/** Programs whose script names the app better than they do (`node server.js` → server). */
const INTERPRETERS = new Set([
  "node",
  "nodejs",
  "python",
  "python3",
  "bash",
  "sh",
  "zsh",
  "tsx",
  "ts-node",
  "ruby",
  "perl",
  "php"
])
/** Interpreter options after which the program is inline code, not a file: nothing to name the app by. */
const INLINE_CODE_OPTIONS = new Set(["-e", "--eval", "-p", "--print", "-c"])
/** Interpreter options that take the next argument as their value (a preload, a loader). */
const VALUED_OPTIONS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader"])

/**
 * The default name of an app started as a command: the script an interpreter runs
 * (`node server.js --port 3` → `server`), else the program itself (`sleep 100` → `sleep`,
 * `node -e "…"` → `node`, `python3 -m http.server` → `http.server`). A candidate that is not a valid name falls back to the program's.
 */
export const commandAppName = (program: string, args: ReadonlyArray<string>): string => {
  const fallback = fileAppName(program)
  if (!INTERPRETERS.has(path.basename(program))) return fallback
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (INLINE_CODE_OPTIONS.has(arg)) return fallback
    // `python -m http.server`: the module, whole (its dots are not an extension).
    if (arg === "-m") return args[i + 1] !== undefined && isUsableName(args[i + 1]!) ? args[i + 1]! : fallback
    if (VALUED_OPTIONS.has(arg)) {
      i++
      continue
    }
    if (arg.startsWith("-")) continue
    const named = fileAppName(arg)
    return isUsableName(named) ? named : fallback
  }
  return fallback
}
