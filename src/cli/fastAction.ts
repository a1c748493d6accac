/**
 * `pmfx stop <target>`, `pmfx restart <target>` and `pmfx delete <target>` (`del`) answered by the
 * launcher itself, before the CLI bundle is loaded, as the listings are (fastList.ts): loading and
 * starting the full CLI is most of such a command's time (docs/architecture.md §12), and
 * `delete all` was the one everyday command slower than PM2's (docs/benchmarks.md, "Everyday
 * commands with 100 apps").
 *
 * Only the plain form is taken: one target made of letters, digits, `_` and `-` (an id, an app
 * name, a namespace, `all`, or `delete`'s `stopped`/`errored`: never a file, a path, a regular
 * expression or `.`, which the CLI explains), with `--json` (and `delete`'s `--force`/`-f`), no
 * `PMFX_URL`, and not a `delete all` that asks its question on a terminal. The launcher sends the
 * request the CLI would send to the local daemon's socket, and prints the CLI's output
 * (actionText.ts, `renderProcessTable`).
 *
 * No daemon answering (the CLI starts one) is left to the CLI. So is, for `stop` and `delete`, any
 * answer but a success — an unknown name, most often: the CLI asks the daemon again and reports the
 * error with its exit code. Stopping or deleting the same target twice changes nothing the first
 * request did not, so the second answer is the first's. A restart is not repeatable that way: the
 * launcher reports its structured errors itself, with the CLI's words and exit codes
 * (errorText.ts, domain/errorMeta.ts).
 * A success the launcher cannot read (a daemon of another version) has already acted: it is
 * reported as the CLI reports one, never sent twice.
 */
import { isErrorCode, metaByCode } from "../domain/errorMeta"
import { ExitCode } from "../domain/exitCodes"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { pathsUnder, resolveHome } from "../shared/homePaths"
import { deletedLine, deletedMessage, restartedHeadline, stoppedHeadline } from "./actionText"
import { debugIn } from "./debugIn"
import { isRenderable, renderError } from "./errorText"
import { isTableRow } from "./fastList"
import { renderProcessTable } from "./processTable"
import { socketRequest } from "./socketRequest"
import { unexpectedAnswerText, unreadableAnswer } from "./unexpectedAnswer"

export interface FastAction {
  readonly verb: "stop" | "restart" | "delete"
  readonly target: string
  readonly json: boolean
}

/** A target the daemon resolves as it is, with nothing for the CLI to explain first. */
const PLAIN_TARGET = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/

const OPTIONS: Readonly<Record<FastAction["verb"], ReadonlyArray<string>>> = {
  stop: ["--json"],
  restart: ["--json"],
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
  const verb = word === "stop" || word === "restart" ? word : word === "delete" || word === "del" ? "delete" : null
  if (verb === null || new Set(rest).size !== rest.length) return null
  const options = rest.filter((arg) => OPTIONS[verb].includes(arg))
  const targets = rest.filter((arg) => !OPTIONS[verb].includes(arg))
  const [target] = targets
  if (target === undefined || targets.length !== 1 || !PLAIN_TARGET.test(target)) return null
  const force = options.includes("--force") || options.includes("-f")
  if (verb === "delete" && target === "all" && !force && stdinIsTerminal) return null
  return { verb, target, json: options.includes("--json") }
}

/** The request the CLI's command sends for the action (delete.ts, restart.ts, stop.ts). */
const requestOf = (
  action: FastAction
): { readonly method: "POST" | "DELETE"; readonly path: string; readonly body?: string } => {
  const target = encodeURIComponent(action.target)
  if (action.verb === "stop") return { method: "POST", path: `/api/processes/${target}/stop` }
  // restart.ts's payload without --port and --update-env.
  if (action.verb === "restart") return { method: "POST", path: `/api/processes/${target}/restart`, body: "{}" }
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
  if (action.verb !== "delete") {
    const rows: unknown = (answer as { readonly processes?: unknown }).processes
    if (!Array.isArray(rows) || !rows.every(isTableRow)) return null
    // The CLI merges the rows of its answers by id; one answer's rows are each one process already.
    const acted: ReadonlyArray<ProcessSummary> = rows
    const headline = action.verb === "stop" ? stoppedHeadline(acted) : restartedHeadline(acted)
    return action.json ? JSON.stringify(acted, null, 2) : `${headline}\n${renderProcessTable(acted)}`
  }
  const ids: unknown = (answer as { readonly deleted?: unknown }).deleted
  if (!isIdList(ids)) return null
  const deleted = [...new Set(ids)]
  return action.json
    ? JSON.stringify({ success: true, message: deletedMessage(deleted), deleted }, null, 2)
    : deletedLine(deleted)
}

/**
 * A daemon's structured error, printed as the CLI's `failWith` prints it (the wire shape on stdout
 * with --json, else `renderError` on stderr) with its exit code; false for any other body.
 */
const reportedError = (action: FastAction, body: Buffer): boolean => {
  const answer = parsed(body)
  if (typeof answer !== "object" || answer === null) return false
  const error: unknown = (answer as { readonly error?: unknown }).error
  if (typeof error !== "object" || error === null) return false
  const { code, message, details } = error as {
    readonly code?: unknown
    readonly message?: unknown
    readonly details?: unknown
  }
  if (!isErrorCode(code) || typeof message !== "string") return false
  const shape = { _tag: code, message, details }
  if (!isRenderable(shape)) return false
  if (action.json)
    process.stdout.write(`${JSON.stringify({ success: false, error: { code, message, details } }, null, 2)}\n`)
  else process.stderr.write(`${renderError(shape)}\n`)
  process.exitCode = metaByCode[code].exitCode
  return true
}

/** The CLI's words for an answer it cannot read (daemonCall.ts), with its exit code. */
const reportUnreadable = (socket: string, status: number, body: Buffer, env: NodeJS.ProcessEnv): void => {
  // As the CLI: one line for the user, the body itself only for PMFX_DEBUG=1.
  process.stderr.write(`${unexpectedAnswerText(socket, unreadableAnswer(undefined))}\n`)
  if (debugIn(env))
    process.stderr.write(
      `pmfx: DEBUG the answer from the daemon at ${socket} that the launcher could not read (HTTP ${status}): ${body.toString("utf8")}\n`
    )
  process.exitCode = ExitCode.unexpected
}

/**
 * Acts and prints as the CLI would, resolving true; or resolves false having printed nothing and
 * done nothing the CLI's own request would not do again (see the module comment). A failure's exit
 * code is left in `process.exitCode`.
 */
export const fastAct = async (action: FastAction, env: NodeJS.ProcessEnv): Promise<boolean> => {
  const paths = pathsUnder(resolveHome(env))
  const { method, path, body } = requestOf(action)
  let reached = false
  // No idle timeout once connected: stopping apps takes as long as their kill_timeout (and a
  // restart as long as their readiness), as for the CLI.
  const answer = await socketRequest(paths.socket, method, path, {
    onConnect: () => (reached = true),
    ...(body === undefined ? {} : { body })
  })
  if (answer === null) {
    if (!reached) return false
    // The request may have acted: asking again could report something else.
    process.stderr.write(
      `DAEMON_UNREACHABLE lost the connection to the daemon on ${paths.socket} before it answered\n  suggestion: see ${paths.daemonLog}, and \`pmfx list\` for what was done (it starts the daemon again)\n`
    )
    process.exitCode = ExitCode.daemonUnreachable
    return true
  }
  if (answer.status !== 200) {
    // stop and delete: the CLI asks again and reports (see the module comment).
    if (action.verb !== "restart") return false
    if (!reportedError(action, answer.body)) reportUnreadable(paths.socket, answer.status, answer.body, env)
    return true
  }
  const output = outputOf(action, answer.body)
  if (output === null) {
    reportUnreadable(paths.socket, answer.status, answer.body, env)
    return true
  }
  process.stdout.write(`${output}\n`)
  return true
}
