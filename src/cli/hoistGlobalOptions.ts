/**
 * `--url` and `--api-key` are options of the root command, and @effect/cli reads a root option only
 * before the command: after it, `pmfx list --url U --json` stopped at `--url` ("unknown argument
 * '--json'") and `pmfx status --url U` took the URL for its target. So they are moved in front of
 * the command before parsing, where they mean the same thing. Not moved: anything after `--`, and
 * `--api-key` of `pmfx web` and `pmfx daemon`, which is the key of the listener they open.
 */
import { commandWordAt } from "./commandWordAt"

const OWN_API_KEY = new Set(["web", "daemon"])

/** `argv` as Node gives it (node, script, ...args), with the global options before the command. */
export const hoistGlobalOptions = (argv: ReadonlyArray<string>): Array<string> => {
  const [node = "node", script = "pmfx", ...args] = argv
  const command = commandWordAt(args)
  if (command >= args.length) return [...argv]
  const front = args.slice(0, command)
  const rest = args.slice(command)
  const hoisted: Array<string> = []
  const kept: Array<string> = []
  const hoistKey = !OWN_API_KEY.has(rest[0] ?? "")
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === "--") {
      kept.push(...rest.slice(i))
      break
    }
    const name = arg.split("=", 1)[0]
    if (name === "--url" || (name === "--api-key" && hoistKey)) {
      if (arg.includes("=")) hoisted.push(arg)
      else if (i + 1 < rest.length) hoisted.push(arg, rest[++i]!)
      else kept.push(arg)
      continue
    }
    kept.push(arg)
  }
  return [node, script, ...front, ...hoisted, ...kept]
}
