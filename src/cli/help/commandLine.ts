/**
 * A light reading of the command line against the command model, done before and after
 * @effect/cli parses it: which command it names, whether it asks for help or JSON, and the first
 * word that is not a command or an option of that command (for "did you mean …?"). It never
 * decides that a command line is valid — @effect/cli does — it only explains why one is not.
 */
import { closestKey } from "../../config/closestKey"
import { commandWordAt } from "../commandWordAt"
import type { CommandModel, OptionModel, ProgramModel } from "./commandModel"
import { findOption } from "./commandModel"

/** Options of @effect/cli that pmfx refuses: they are not part of its interface (docs/cli.md). */
export const REFUSED_BUILT_INS: Readonly<Record<string, string>> = {
  "--wizard": "pmfx has no wizard mode: run `pmfx <command> --help` to see a command's options",
  "--completions": "print a completion script with `pmfx completion bash|zsh|fish`"
}

/** Options @effect/cli reads on every command, besides the root's own. */
const BUILT_INS: ReadonlyArray<OptionModel> = [
  {
    names: ["-h", "--help"],
    value: undefined,
    choices: [],
    description: "",
    repeatable: false,
    defaultValue: undefined
  },
  { names: ["--version"], value: undefined, choices: [], description: "", repeatable: false, defaultValue: undefined },
  { names: ["--log-level"], value: "level", choices: [], description: "", repeatable: false, defaultValue: undefined }
]

export interface CommandLine {
  /** The command named, `[]` for none (`pmfx --help`), undefined when the word is not a command. */
  readonly command: CommandModel | undefined
  /** The word in the command's place that is not a command. */
  readonly unknownCommand: string | undefined
  readonly helpRequested: boolean
  readonly json: boolean
  /** The first option that the command does not have. */
  readonly unknownOption: string | undefined
  /** A refused @effect/cli option, when one is given. */
  readonly refusedBuiltIn: string | undefined
  /** An option that takes a value, written last with none (`pmfx alerts --limit`). */
  readonly missingValue: string | undefined
  /**
   * The unknown option, when it is one of the command's own written before the command word
   * (`pmfx --json stop api`): where it is (an index of `words`) and whether its value follows it.
   */
  readonly misplacedOption: { readonly at: number; readonly withValue: boolean } | undefined
  /** The words read. */
  readonly words: ReadonlyArray<string>
}

const takesValue = (option: OptionModel | undefined): boolean => option !== undefined && option.value !== undefined

/** `start`'s `--watch [paths]` may go bare (commands/startFlags.ts `bareWatchFlag` gives it its value). */
const OPTIONAL_VALUE = new Set(["--watch"])

const isOptionWord = (word: string): boolean => word.startsWith("-") && word !== "-" && !/^-\d/.test(word)

const isCommandWord = (model: ProgramModel, word: string): boolean =>
  model.commands.some((command) => command.path.length === 1 && command.path[0] === word)

/** `args`: the words after `pmfx`, with the global options in front (hoistGlobalOptions). */
export const readCommandLine = (args: ReadonlyArray<string>, model: ProgramModel): CommandLine => {
  const globals = [...model.root.options, ...BUILT_INS]
  let i = 0
  let helpRequested = false
  let refusedBuiltIn: string | undefined
  let unknownOption: string | undefined
  let missingValue: string | undefined
  /** Where the first unknown option before the command word is. */
  let unknownAt: number | undefined
  /** The option at `at` takes a value and nothing follows it (the end, or `--`). */
  const noValueAfter = (at: number) =>
    !OPTIONAL_VALUE.has(args[at]!) && (at + 1 >= args.length || args[at + 1] === "--")
  while (i < args.length && isOptionWord(args[i]!) && args[i] !== "--") {
    const name = args[i]!.split("=", 1)[0]!
    if (name === "-h" || name === "--help") helpRequested = true
    if (name in REFUSED_BUILT_INS) refusedBuiltIn ??= name
    const option = findOption(globals, name)
    if (option === undefined && !(name in REFUSED_BUILT_INS) && unknownOption === undefined) {
      unknownOption = name
      unknownAt = i
    }
    if (takesValue(option) && !args[i]!.includes("=") && noValueAfter(i)) missingValue ??= name
    // An unknown option with its value (`pmfx --lines 5 logs`): the command is the word after both.
    const unknownWithValue =
      option === undefined &&
      !args[i]!.includes("=") &&
      i + 2 < args.length &&
      !isOptionWord(args[i + 1]!) &&
      !isCommandWord(model, args[i + 1]!) &&
      isCommandWord(model, args[i + 2]!)
    i += (takesValue(option) && !args[i]!.includes("=")) || unknownWithValue ? 2 : 1
  }
  const word = args[i]
  const top =
    word === undefined || word === "--"
      ? undefined
      : model.commands.find((command) => command.path.length === 1 && command.path[0] === word)
  if (word !== undefined && word !== "--" && top === undefined) {
    return {
      command: undefined,
      unknownCommand: word,
      helpRequested,
      json: args.includes("--json"),
      unknownOption,
      refusedBuiltIn,
      missingValue,
      misplacedOption: undefined,
      words: args
    }
  }
  let command = top ?? model.root
  if (top !== undefined) {
    i++
    const child = model.commands.find(
      (other) => other.path.length === 2 && other.path[0] === top.path[0] && other.path[1] === args[i]
    )
    if (child !== undefined) {
      command = child
      i++
    }
  }
  const ownBefore =
    unknownAt === undefined || top === undefined ? undefined : findOption(command.options, unknownOption!)
  const misplacedOption =
    ownBefore === undefined || unknownAt === undefined
      ? undefined
      : { at: unknownAt, withValue: takesValue(ownBefore) && !args[unknownAt]!.includes("=") }
  const known = [...command.options, ...globals]
  let json = false
  for (; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (!isOptionWord(arg)) continue
    const name = arg.split("=", 1)[0]!
    if (name === "-h" || name === "--help") helpRequested = true
    if (name === "--json") json = true
    if (name in REFUSED_BUILT_INS) {
      refusedBuiltIn ??= name
      continue
    }
    const option = findOption(known, name)
    // `-ft`: short flags written together.
    const cluster =
      /^-[A-Za-z]{2,}$/.test(arg) && [...arg.slice(1)].every((letter) => findOption(known, `-${letter}`) !== undefined)
    if (option === undefined && !cluster) unknownOption ??= name
    if (takesValue(option) && !arg.includes("=")) {
      if (noValueAfter(i)) missingValue ??= name
      i++
    }
  }
  return {
    command,
    unknownCommand: undefined,
    helpRequested,
    json,
    unknownOption,
    refusedBuiltIn,
    missingValue,
    misplacedOption,
    words: args
  }
}

/**
 * `pmfx help [command]` is `pmfx [command] --help` (git's and npm's way of asking). `args`: the
 * words after `pmfx`, global options in front.
 */
export const helpWordAsOption = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const at = commandWordAt(args)
  return args[at] === "help" ? [...args.slice(0, at), ...args.slice(at + 1), "--help"] : args
}

/** The closest command name, for "did you mean …?". */
export const closestCommand = (model: ProgramModel, word: string): string | undefined =>
  closestKey(
    word,
    model.commands.filter((command) => command.path.length === 1).map((command) => command.path[0]!)
  )

/** The closest option of a command (or a global one). */
export const closestOption = (
  model: ProgramModel,
  command: CommandModel | undefined,
  word: string
): string | undefined =>
  closestKey(
    word,
    [...(command?.options ?? []), ...model.root.options, ...BUILT_INS].flatMap((option) =>
      option.names.filter((name) => name.startsWith("--"))
    )
  )
