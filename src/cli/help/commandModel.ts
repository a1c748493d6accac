/**
 * What the help, the usage errors and the shell completions know about each command — its
 * arguments and options with their descriptions — read from the @effect/cli definitions
 * themselves (the public `HelpDoc` of each command), so that an option added to a command is in
 * `--help` and in the completions without being written down a second time. Only the text
 * @effect/cli adds around a description ("A user-defined piece of text.", "This setting is
 * optional.") is left out: it says nothing a reader needs (docs/decisions.md, "The CLI's help").
 */
import type { Command } from "@effect/cli"
import { CliConfig, CommandDescriptor, HelpDoc } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { HashMap } from "effect"

export interface OptionModel {
  /** Every name, the long one last: `["-n", "--name"]`. */
  readonly names: ReadonlyArray<string>
  /** The value it takes (`port`, `fork|cluster`), or undefined for a flag. */
  readonly value: string | undefined
  /** The values it accepts, for a choice (`--exec-mode fork|cluster`). */
  readonly choices: ReadonlyArray<string>
  readonly description: string
  readonly repeatable: boolean
  /** The default @effect/cli applies, when it is worth showing (not `false`, not "none"). */
  readonly defaultValue: string | undefined
}

export interface ArgumentModel {
  /** `<id|name|namespace|all>`. */
  readonly name: string
  readonly description: string
  readonly optional: boolean
}

export interface CommandModel {
  /** `["start"]`, `["daemon", "restart"]`. */
  readonly path: ReadonlyArray<string>
  readonly description: string
  readonly args: ReadonlyArray<ArgumentModel>
  readonly options: ReadonlyArray<OptionModel>
}

/** The model of the root (`pmfx` and its global options) and of every command under it. */
export interface ProgramModel {
  readonly root: CommandModel
  readonly commands: ReadonlyArray<CommandModel>
}

const config = CliConfig.make({ showBuiltIns: false })

const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(span.value)
  }
}

/** A document as plain text, one line per paragraph (no colors, no wrapping). */
export const plainText = (doc: HelpDoc.HelpDoc): string =>
  blocks(doc)
    .map((block) =>
      block._tag === "Paragraph" || block._tag === "Header"
        ? spanText(block.value)
        : block._tag === "DescriptionList"
          ? block.definitions.map(([span, body]) => `${spanText(span)} ${plainText(body)}`).join("\n")
          : block._tag === "Enumeration"
            ? block.elements.map(plainText).join("\n")
            : ""
    )
    .filter((line) => line !== "")
    .join("\n")

/** The blocks of a document in reading order (a `Sequence` is only how they are chained). */
const blocks = (doc: HelpDoc.HelpDoc): Array<HelpDoc.HelpDoc> =>
  doc._tag === "Sequence" ? [...blocks(doc.left), ...blocks(doc.right)] : doc._tag === "Empty" ? [] : [doc]

const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> =>
  blocks(doc).flatMap((block) => (block._tag === "Paragraph" ? [spanText(block.value)] : []))

/**
 * What @effect/cli writes around a description: the first paragraph names the value's type, and
 * these sentences come after it.
 */
const LIBRARY_SENTENCE = /^(This setting is|This option (may|must|can)|This argument (may|must)|May be specified)/

interface Described {
  readonly description: string
  readonly defaultValue: string | undefined
  readonly repeatable: boolean
}

const describe = (doc: HelpDoc.HelpDoc): Described => {
  const [, ...rest] = paragraphs(doc)
  const own = rest.filter((text) => !LIBRARY_SENTENCE.test(text))
  const defaulted = rest
    .map((text) => /^This setting is optional\. Defaults to: (.*)$/.exec(text)?.[1])
    .find((value) => value !== undefined)
  return {
    description: own.join(" ").trim(),
    defaultValue:
      defaulted === undefined || defaulted === "false" || defaulted === ""
        ? undefined
        : defaulted.replace(/^"(.*)"$/, "$1"),
    repeatable: rest.some((text) => /^This (option|argument) (may|must) be repeated/.test(text))
  }
}

/** `(-n, --name name)...` → names, value, choices. */
const parseOptionSpan = (text: string): Pick<OptionModel, "names" | "value" | "choices"> => {
  const inner = text
    .replace(/\.\.\.$|\s+\d+\+$|\s+\d+ - \d+$/, "")
    .replace(/^\((.*)\)$/, "$1")
    .trim()
  const names: Array<string> = []
  let rest = inner
  for (;;) {
    const match = /^(--?[A-Za-z0-9][\w-]*),?\s*/.exec(rest)
    if (match === null) break
    names.push(match[1]!)
    rest = rest.slice(match[0].length)
  }
  const value = rest.trim()
  const choices = value.includes(" | ") ? value.split(" | ").map((choice) => choice.trim()) : []
  return {
    names: [...names].sort((a, b) => a.length - b.length),
    value: value === "" ? undefined : choices.length > 0 ? choices.join("|") : value,
    choices
  }
}

/** The definitions of one section (`ARGUMENTS`, `OPTIONS`) of a command's help. */
const section = (doc: HelpDoc.HelpDoc, title: string): Array<readonly [string, HelpDoc.HelpDoc]> => {
  const all = blocks(doc)
  const out: Array<readonly [string, HelpDoc.HelpDoc]> = []
  let inside = false
  for (const block of all) {
    if (block._tag === "Header") inside = spanText(block.value) === title
    else if (inside && block._tag === "DescriptionList")
      for (const [span, body] of block.definitions) out.push([spanText(span), body])
  }
  return out
}

const commandModel = (path: ReadonlyArray<string>, descriptor: CommandDescriptor.Command<unknown>): CommandModel => {
  const doc = CommandDescriptor.getHelp(descriptor, config)
  const descriptionBlocks = blocks(doc)
  const header = descriptionBlocks.findIndex(
    (block) => block._tag === "Header" && spanText(block.value) === "DESCRIPTION"
  )
  const descriptionBlock = header >= 0 ? descriptionBlocks[header + 1] : undefined
  return {
    path,
    description:
      descriptionBlock !== undefined && descriptionBlock._tag === "Paragraph" ? spanText(descriptionBlock.value) : "",
    args: section(doc, "ARGUMENTS").map(([span, body]) => {
      const paragraphsOfArg = paragraphs(body)
      return {
        name: span.replace(/\.\.\.$/, "").trim(),
        description: describe(body).description,
        optional: paragraphsOfArg.some((text) => text.startsWith("This setting is optional"))
      }
    }),
    options: section(doc, "OPTIONS").map(([span, body]) => ({ ...parseOptionSpan(span), ...describe(body) }))
  }
}

/**
 * A command's model whose help is read on first use of its description, arguments or options.
 * The CLI checks the options of every command line that has one (src/bin.ts), and reading all ~30
 * commands' help for that was ~8 ms of each such command's start; now only the command named is read.
 */
const lazyCommandModel = (
  path: ReadonlyArray<string>,
  descriptor: CommandDescriptor.Command<unknown>
): CommandModel => {
  let model: CommandModel | undefined
  const read = (): CommandModel => {
    model ??= commandModel(path, descriptor)
    return model
  }
  return {
    path,
    get description() {
      return read().description
    },
    get args() {
      return read().args
    },
    get options() {
      return read().options
    }
  }
}

/** Reads the model of a command tree (the root, its commands, and their own subcommands). */
export const programModel = <Name extends string, R, E, A>(
  root: Command.Command<Name, R, E, A>,
  commands: ReadonlyArray<{ readonly descriptor: CommandDescriptor.Command<unknown> }>
): ProgramModel => {
  const rootModel = commandModel([], root.descriptor)
  const models: Array<CommandModel> = []
  for (const command of commands) {
    const descriptor = command.descriptor
    const [name] = CommandDescriptor.getNames(descriptor)
    if (name === undefined) continue
    models.push(lazyCommandModel([name], descriptor))
    for (const [childName, child] of HashMap.toEntries(CommandDescriptor.getSubcommands(descriptor))) {
      if (childName !== name) models.push(lazyCommandModel([name, childName], child))
    }
  }
  return { root: rootModel, commands: models }
}

/** The command a path names (`["daemon", "restart"]`), if any. */
export const findCommand = (model: ProgramModel, path: ReadonlyArray<string>): CommandModel | undefined =>
  model.commands.find((command) => command.path.join(" ") === path.join(" "))

/** The option of a command (or a global one) that has this name. */
export const findOption = (options: ReadonlyArray<OptionModel>, name: string): OptionModel | undefined =>
  options.find((option) => option.names.includes(name))
