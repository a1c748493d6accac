/**
 * A bad command line as a structured error (BAD_REQUEST, exit 2), printed like every other error
 * of the CLI — `BAD_REQUEST <what>` and a `suggestion:` line on stderr, or with `--json` the API's
 * error shape on stdout — instead of @effect/cli's own text. An unknown command or option gets
 * "did you mean …?" when a close name exists.
 */
import type { ValidationError } from "@effect/cli"
import { BadRequest } from "../../domain/errors"
import { quoteShellWord } from "../../domain/shellWords"
import { readUsageText } from "../usage"
import type { CommandLine } from "./commandLine"
import { closestCommand, closestOption, REFUSED_BUILT_INS } from "./commandLine"
import type { ProgramModel } from "./commandModel"
import { findOption, plainText } from "./commandModel"

/** PM2 commands pmfx has no counterpart for, and what to do instead. */
const PM2_ONLY: Readonly<Record<string, string>> = {
  unstartup: "run `systemctl disable --now pmfx-$USER.service` and remove the unit file",
  deploy: "pmfx supervises apps, it does not deploy code: use your deployment tool, then `pmfx reload <app>`",
  install:
    "pmfx has no modules; log rotation is built in (pm2-logrotate's max_size, retain, compress, rotateInterval are each app's max_log_size, max_log_files, compress_logs, rotation_schedule in its ecosystem file; docs/configuration.md)",
  set: "pmfx has no module settings: for pm2-logrotate's, set max_log_size, max_log_files, compress_logs or rotation_schedule on each app in its ecosystem file and `pmfx apply` it",
  init: "pmfx writes no sample file: start from examples/ecosystem.json or docs/configuration.md (a PM2 ecosystem.config.js works as it is), then check it with `pmfx validate <file>`",
  ecosystem:
    "pmfx writes no sample file: start from examples/ecosystem.json or docs/configuration.md (a PM2 ecosystem.config.js works as it is), then check it with `pmfx validate <file>`"
}

const NO_COUNTERPART = "has no counterpart in pmfx (it collects no git or APM data): drop it"

/** PM2's `start` options pmfx does without, and what to do instead (the option is still refused, exit 2). */
const PM2_START_OPTIONS: Readonly<Record<string, string>> = {
  "--no-daemon":
    "pmfx runs apps in the foreground with `pmfx-runtime <file|script>` (a container's entry point, docs/containers.md), or `pmfx daemon --config <file>` (under systemd)",
  "-f": "pmfx never starts an app twice under one name: `pmfx restart <name>`, or give another --name",
  "--force": "pmfx never starts an app twice under one name: `pmfx restart <name>`, or give another --name",
  "--no-vizion": `PM2's --no-vizion ${NO_COUNTERPART}`,
  "--no-pmx": `PM2's --no-pmx ${NO_COUNTERPART}`,
  "--no-automation": `PM2's --no-automation ${NO_COUNTERPART}`,
  "--disable-trace": `PM2's --disable-trace ${NO_COUNTERPART}`,
  "--trace": `PM2's --trace ${NO_COUNTERPART}`
}

const helpOf = (line: CommandLine): string =>
  line.command === undefined || line.command.path.length === 0
    ? "pmfx --help"
    : `pmfx ${line.command.path.join(" ")} --help`

/** An option's problem reads `--port: …`; the others are whole sentences. */
const badRequest = (field: string, reason: string, suggestion: string) =>
  new BadRequest({
    message: field.startsWith("-") ? `${field}: ${reason}` : reason,
    details: { field, reason, suggestion }
  })

/** The error for an unknown command, option or refused built-in found by reading the line. */
export const lineError = (line: CommandLine, model: ProgramModel): BadRequest | undefined => {
  if (line.refusedBuiltIn !== undefined)
    return badRequest(line.refusedBuiltIn, "unknown option", REFUSED_BUILT_INS[line.refusedBuiltIn]!)
  if (line.unknownCommand !== undefined) {
    const word = line.unknownCommand
    const pm2 = PM2_ONLY[word]
    if (pm2 !== undefined) return badRequest("command", `pmfx has no \`${word}\` command`, pm2)
    const close = closestCommand(model, word)
    return badRequest(
      "command",
      `unknown command '${word}'${close === undefined ? "" : `; did you mean '${close}'?`}`,
      close === undefined
        ? "run `pmfx --help` to see every command"
        : `run \`pmfx ${close}\`, or \`pmfx --help\` to see every command`
    )
  }
  if (line.unknownOption !== undefined && line.misplacedOption !== undefined && line.command !== undefined) {
    // An option of the command, written before it, where @effect/cli reads only pmfx's own.
    const word = line.unknownOption
    const { at, withValue } = line.misplacedOption
    const moved = line.words.slice(at, withValue ? at + 2 : at + 1)
    const rest = [...line.words.slice(0, at), ...line.words.slice(at + moved.length)]
    const end = rest.indexOf("--")
    const fixed = end === -1 ? [...rest, ...moved] : [...rest.slice(0, end), ...moved, ...rest.slice(end)]
    const where = `pmfx ${line.command.path.join(" ")}`
    return badRequest(
      word,
      `is an option of ${where}, and goes after the command word`,
      `run \`pmfx ${fixed.map(quoteShellWord).join(" ")}\``
    )
  }
  if (line.unknownOption !== undefined) {
    const word = line.unknownOption
    const pm2 = line.command?.path.join(" ") === "start" ? PM2_START_OPTIONS[word] : undefined
    if (pm2 !== undefined) return badRequest(word, "PM2's option is not one of pmfx start", pm2)
    const close = closestOption(model, line.command, word)
    const where =
      line.command === undefined || line.command.path.length === 0 ? "pmfx" : `pmfx ${line.command.path.join(" ")}`
    return badRequest(
      word,
      `unknown option for ${where}${close === undefined ? "" : `; did you mean '${close}'?`}`,
      `run \`${helpOf(line)}\` to see its options`
    )
  }
  if (line.missingValue !== undefined) {
    // @effect/cli would take the option itself for an argument (`pmfx alerts --limit` → an app "--limit").
    const word = line.missingValue
    const option = findOption([...(line.command?.options ?? []), ...model.root.options], word)
    return new BadRequest({
      message: `${word} needs a value`,
      details: {
        field: word,
        reason: "needs a value",
        suggestion: `give it one, like ${word} <${option?.value ?? "value"}>; run \`${helpOf(line)}\` to see what it takes`
      }
    })
  }
  return undefined
}

const lowerFirst = (text: string) => (text === "" ? text : text[0]!.toLowerCase() + text.slice(1))

/**
 * The error for what @effect/cli refused: an unknown command or option (with a close name), a
 * bad option value (already structured by `optionValue`), or the library's reason in one line.
 */
export const usageError = (
  error: ValidationError.ValidationError,
  line: CommandLine,
  model: ProgramModel
): BadRequest => {
  const found = lineError(line, model)
  if (found !== undefined) return found
  const text = error._tag === "HelpRequested" ? "" : plainText(error.error)
  const structured = readUsageText(text)
  if (structured !== undefined) return badRequest(structured.field, structured.reason, structured.suggestion)
  const help = `run \`${helpOf(line)}\` to see its usage`
  // "'x' is not a integer": name the option the value was given to.
  const badValue = /^'(.*)' is not an? (.+)$/.exec(text.trim())
  if (badValue !== null) {
    const [, value, kind] = badValue
    const option = line.words.find((word, i) => word.startsWith("-") && line.words[i + 1] === value)
    const article = /^[aeiou]/.test(kind!) ? "an" : "a"
    return badRequest(option ?? "arguments", `'${value}' is not ${article} ${kind}`, help)
  }
  const unexpected = /^Received unknown argument: '(.*)'$/.exec(text.trim())
  if (unexpected !== null) {
    return badRequest("arguments", `unexpected argument '${unexpected[1]}'`, help)
  }
  const reason =
    lowerFirst(
      text
        .split("\n")
        .map((part) => part.trim())
        .filter((part) => part !== "")
        .join("; ")
    ) || "the command line could not be read"
  return badRequest("arguments", reason, help)
}
