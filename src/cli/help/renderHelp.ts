/**
 * `pmfx --help` and `pmfx <command> --help`: usage lines, the description, one entry per argument
 * and option (name, then its description wrapped beside it), global options and examples, wrapped
 * at the terminal's width (80 columns when stdout is not a terminal). The text comes from the
 * command definitions (commandModel.ts) and the catalogue (catalogue.ts).
 */
import { ALIASES } from "../commandAliases"
import type { CatalogueEntry, Example } from "./catalogue"
import { catalogue, rootEntry } from "./catalogue"
import type { CommandModel, OptionModel, ProgramModel } from "./commandModel"

/** Options every command takes, shown under "Global options" (the root's own are read from the model). */
const HELP_OPTION: OptionModel = {
  names: ["-h", "--help"],
  value: undefined,
  choices: [],
  description: "print this help",
  repeatable: false,
  defaultValue: undefined
}
const VERSION_OPTION: OptionModel = { ...HELP_OPTION, names: ["--version"], description: "print pmfx's version" }

/** The terminal's width, or 80 when stdout is not a terminal; never below 40. */
export const helpWidth = (stream: NodeJS.WriteStream): number =>
  stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 0 ? Math.max(40, stream.columns) : 80

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
export const wrap = (text: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word
    else if (line.length + 1 + word.length <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = word
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

/** A paragraph indented by `indent`, continuation lines indented by `hang` more. */
const block = (text: string, width: number, indent: number, hang = 0): Array<string> =>
  wrap(text, Math.max(20, width - indent - hang)).map((line, i) => " ".repeat(indent + (i === 0 ? 0 : hang)) + line)

/**
 * Name/description pairs: the descriptions start in one column when the names are short enough,
 * else under their name. Each description is wrapped to the width.
 */
const definitions = (rows: ReadonlyArray<readonly [string, string]>, width: number): Array<string> => {
  const indent = 2
  const longest = Math.max(...rows.map(([name]) => name.length))
  const column = Math.min(longest, Math.max(14, Math.floor(width / 3))) + indent + 2
  const out: Array<string> = []
  for (const [name, description] of rows) {
    const text = description === "" ? [] : wrap(description, Math.max(20, width - column))
    if (indent + name.length + 2 <= column) {
      const [first = "", ...rest] = text
      out.push(`${" ".repeat(indent)}${name.padEnd(column - indent)}${first}`.trimEnd())
      for (const line of rest) out.push(" ".repeat(column) + line)
    } else {
      out.push(" ".repeat(indent) + name)
      for (const line of text) out.push(" ".repeat(column) + line)
    }
  }
  return out
}

/** `-n, --name <name>`, `--exec-mode fork|cluster`, `-e, --env <KEY=VALUE|NAME>...`. */
export const optionLabel = (option: OptionModel): string => {
  const value = option.value === undefined ? "" : option.choices.length > 0 ? ` ${option.value}` : ` <${option.value}>`
  return `${option.names.join(", ")}${value}${option.repeatable ? "..." : ""}`
}

const optionText = (option: OptionModel): string =>
  option.defaultValue !== undefined && !/default/i.test(option.description)
    ? `${option.description} (default ${option.defaultValue})`
    : option.description

/** Each example on its line, its comment beside it when both fit, else on the next line. */
const examples = (list: ReadonlyArray<Example>, width: number): Array<string> => {
  const column = Math.max(...list.map((example) => example.command.length)) + 4
  return list.flatMap((example) => {
    if (example.comment === undefined) return block(example.command, width, 2, 4)
    if (column + 2 + example.comment.length <= width)
      return [`  ${example.command.padEnd(column - 2)}# ${example.comment}`]
    return [...block(example.command, width, 2, 4), ...block(`# ${example.comment}`, width, 6, 2)]
  })
}

const section = (title: string, lines: ReadonlyArray<string>): Array<string> =>
  lines.length === 0 ? [] : ["", `${title}:`, ...lines]

/** The global options of the root, as every command's help shows them. */
const globalOptions = (model: ProgramModel): Array<OptionModel> => [...model.root.options, HELP_OPTION]

/** Capitalized first letter, final period: descriptions are written as sentence fragments. */
const sentence = (text: string): string => {
  const trimmed = text.trim()
  if (trimmed === "") return trimmed
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1)
  return /[.!?)]$/.test(capital) ? capital : `${capital}.`
}

export const renderRootHelp = (model: ProgramModel, version: string, width: number): string => {
  const rows = model.commands.map((command): readonly [string, string] => {
    const key = command.path.join(" ")
    const aliases = Object.keys(ALIASES).filter((alias) => ALIASES[alias]![0] === key)
    const summary = catalogue[key]?.summary ?? command.description
    return [key, aliases.length === 0 ? summary : `${summary} (also: ${aliases.join(", ")})`]
  })
  const lines = [
    ...wrap(`pmfx ${version} — a process manager for Linux servers, built on Effect`, width),
    ...section(
      "Usage",
      rootEntry.usage.flatMap((line) => block(line, width, 2, 4))
    ),
    ...section("Commands", definitions(rows, width)),
    ...section(
      "Global options (anywhere on the command line)",
      definitions(
        [...globalOptions(model), VERSION_OPTION].map((o) => [optionLabel(o), optionText(o)]),
        width
      )
    ),
    ...section("Examples", examples(rootEntry.examples, width)),
    "",
    ...wrap(
      "Run `pmfx <command> --help` for a command's options. Every command, option and exit code: docs/cli.md.",
      width
    )
  ]
  return lines.join("\n")
}

export const renderCommandHelp = (
  model: ProgramModel,
  command: CommandModel,
  entry: CatalogueEntry | undefined,
  width: number
): string => {
  const key = command.path.join(" ")
  const children = model.commands.filter(
    (other) => other.path.length === command.path.length + 1 && other.path.join(" ").startsWith(`${key} `)
  )
  const usage = entry?.usage ?? [`pmfx ${key} [options]`]
  const lines = [
    ...wrap(`pmfx ${key} — ${entry?.summary ?? command.description}`, width),
    ...section(
      "Usage",
      usage.flatMap((line) => block(line, width, 2, 4))
    ),
    "",
    ...wrap(sentence(command.description), width),
    ...(entry?.pm2 === undefined ? [] : ["", ...wrap(`PM2: ${entry.pm2}.`, width)]),
    ...section(
      "Commands",
      definitions(
        children.map((child): readonly [string, string] => [
          child.path.join(" "),
          catalogue[child.path.join(" ")]?.summary ?? child.description
        ]),
        width
      )
    ),
    ...section(
      "Arguments",
      command.args.length === 0
        ? []
        : definitions(
            command.args.map((arg) => [arg.optional ? `[${arg.name}]` : arg.name, arg.description]),
            width
          )
    ),
    ...section(
      "Options",
      command.options.length === 0
        ? []
        : definitions(
            command.options.map((o) => [optionLabel(o), optionText(o)]),
            width
          )
    ),
    ...section(
      "Global options",
      definitions(
        globalOptions(model).map((o) => [optionLabel(o), optionText(o)]),
        width
      )
    ),
    ...section("Examples", examples(entry?.examples ?? [], width)),
    "",
    ...wrap(`More: ${entry?.docs ?? "docs/cli.md"}`, width)
  ]
  return lines.join("\n")
}
