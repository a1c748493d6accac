/**
 * `pmfx stop <target>` and `pmfx delete <target>` (`del`) answered by the launcher itself, before
 * the CLI bundle is loaded, as the listings are (fastList.ts): loading and starting the full CLI is
 * most of such a command's time (docs/architecture.md §12), and `delete all` was the one everyday
 * command slower than PM2's (docs/benchmarks.md, "Everyday commands with 100 apps").
 *
 * Only the plain form is taken: one target made of letters, digits, `_` and `-` (an id, an app
 * name, a namespace, `all`, or `delete`'s `stopped`/`errored`: never a file, a path, a regular
 * expression or `.`, which the CLI explains), with `--json` (and `delete`'s `--force`/`-f`), no
 * `PMFX_URL`, and not a `delete all` that asks its question on a terminal. The launcher sends the
 * request the CLI would send to the local daemon's socket, and prints the CLI's output
 * (actionText.ts, `renderProcessTable`).
 *
 * Everything else is left to the CLI, which then does what it always does: no daemon answering
 * (it starts one), and any answer but a success — an unknown name, most often. The CLI asks the
 * daemon again and reports the error with its exit code: stopping or deleting the same target
 * twice changes nothing the first request did not, so the second answer is the first's.
 * A success the launcher cannot read (a daemon of another version) has already acted: it is
 * reported as the CLI reports one, never sent twice.
 */
import { ExitCode } from "../domain/exitCodes"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { pathsUnder, resolveHome } from "../shared/homePaths"
import { deletedLine, deletedMessage, stoppedHeadline } from "./actionText"
import { debugIn } from "./debugIn"
import { isTableRow } from "./fastList"
import { renderProcessTable } from "./processTable"
import { socketRequest } from "./socketRequest"
import { unexpectedAnswerText, unreadableAnswer } from "./unexpectedAnswer"

export interface FastAction {
  readonly verb: "stop" | "delete"
  readonly target: string
  readonly json: boolean
}

/** A target the daemon resolves as it is, with nothing for the CLI to explain first. */
const PLAIN_TARGET = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/

const OPTIONS: Readonly<Record<FastAction["verb"], ReadonlyArray<string>>> = {
  stop: ["--json"],
  delete: ["--json", "--force", "-f"]
}

/** The states `delete` takes as a target (delete.ts): the rows in that state. */
const BY_STATUS: ReadonlySet<string> = new Set(["stopped", "errored"])

/**
 * The action these arguments are, when the launcher can answer it (see the module comment).
 * `stdinIsTerminal`: whether `delete all` would ask its question.
 */
export const fastActionOf = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  stdinIsTerminal: boolean
): FastAction | null => {
  if ((env["PMFX_URL"] ?? "") !== "") return null
  const [word, ...rest] = args
  const verb = word === "stop" ? "stop" : word === "delete" || word === "del" ? "delete" : null
  if (verb === null || new Set(rest).size !== rest.length) return null
  const options = rest.filter((arg) => OPTIONS[verb].includes(arg))
  const targets = rest.filter((arg) => !OPTIONS[verb].includes(arg))
  const [target] = targets
  if (target === undefined || targets.length !== 1 || !PLAIN_TARGET.test(target)) return null
  const force = options.includes("--force") || options.includes("-f")
  if (verb === "delete" && target === "all" && !force && stdinIsTerminal) return null
  return { verb, target, json: options.includes("--json") }
}

/** The request the CLI's command sends for the action (delete.ts, stop.ts). */
const requestOf = (action: FastAction): { readonly method: "POST" | "DELETE"; readonly path: string } => {
  const target = encodeURIComponent(action.target)
  if (action.verb === "stop") return { method: "POST", path: `/api/processes/${target}/stop` }
  return {
    method: "DELETE",
    path: BY_STATUS.has(action.target) ? `/api/processes?status=${target}` : `/api/processes?id=${target}`
  }
}

const parsed = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString("utf8"))
  } catch {
    return undefined
  }
}

const isIdList = (value: unknown): value is ReadonlyArray<number> =>
  Array.isArray(value) && value.every((id) => Number.isInteger(id))

/** The output of a success, or null when the body is not the answer this pmfx expects. */
const outputOf = (action: FastAction, body: Buffer): string | null => {
  const answer = parsed(body)
  if (typeof answer !== "object" || answer === null) return null
  if (action.verb === "stop") {
    const rows: unknown = (answer as { readonly processes?: unknown }).processes
    if (!Array.isArray(rows) || !rows.every(isTableRow)) return null
    // The CLI merges the rows of its answers by id; one answer's rows are each one process already.
    const stopped: ReadonlyArray<ProcessSummary> = rows
    return action.json
      ? JSON.stringify(stopped, null, 2)
      : `${stoppedHeadline(stopped)}\n${renderProcessTable(stopped)}`
  }
  const ids: unknown = (answer as { readonly deleted?: unknown }).deleted
  if (!isIdList(ids)) return null
  const deleted = [...new Set(ids)]
  return action.json
    ? JSON.stringify({ success: true, message: deletedMessage(deleted), deleted }, null, 2)
    : deletedLine(deleted)
}

/**
 * Acts and prints as the CLI would, resolving true; or resolves false having printed nothing and
 * done nothing the CLI's own request would not do again (see the module comment).
 */
export const fastAct = async (action: FastAction, env: NodeJS.ProcessEnv): Promise<boolean> => {
  const paths = pathsUnder(
    resolveHome({ PMFX_HOME: env["PMFX_HOME"], XDG_DATA_HOME: env["XDG_DATA_HOME"], HOME: env["HOME"] })
  )
  const { method, path } = requestOf(action)
  let reached = false
  // No idle timeout once connected: stopping apps takes as long as their kill_timeout, as for the CLI.
  const answer = await socketRequest(paths.socket, method, path, { onConnect: () => (reached = true) })
  if (answer === null) {
    if (!reached) return false
    // The request may have acted: asking again could report something else.
    process.stderr.write(
      `DAEMON_UNREACHABLE lost the connection to the daemon on ${paths.socket} before it answered\n  suggestion: see ${paths.daemonLog}, and \`pmfx list\` for what was done (it starts the daemon again)\n`
    )
    process.exitCode = ExitCode.daemonUnreachable
    return true
  }
  if (answer.status !== 200) return false
  const output = outputOf(action, answer.body)
  if (output === null) {
    // As the CLI: one line for the user, the body itself only for PMFX_DEBUG=1.
    process.stderr.write(`${unexpectedAnswerText(paths.socket, unreadableAnswer(undefined))}\n`)
    if (debugIn(env))
      process.stderr.write(
        `pmfx: DEBUG the answer from the daemon at ${paths.socket} that the launcher could not read (HTTP ${answer.status}): ${answer.body.toString("utf8")}\n`
      )
    process.exitCode = ExitCode.unexpected
    return true
  }
  process.stdout.write(`${output}\n`)
  return true
}
