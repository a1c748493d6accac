/**
 * `pmfx completion bash|zsh|fish`: shell scripts that complete command names, each command's
 * options (and the values of a choice, `--exec-mode fork|cluster`), and for the commands that
 * take a process — `stop`, `restart`, `logs`… — the current app names and namespaces. Those come
 * from `pmfx completion --list-names`, which the launcher answers from the local daemon's socket
 * without loading the CLI and never starts a daemon (completionNames.ts). Everything else in the
 * scripts is written out from the command model, so a new command or option completes at once.
 */
import type { Completes } from "./catalogue"
import { catalogue } from "./catalogue"
import type { CommandModel, ProgramModel } from "./commandModel"

export const SHELLS = ["bash", "zsh", "fish"] as const
export type Shell = (typeof SHELLS)[number]

/** Signal names for `sendSignal`, the ones people send to apps. */
/** `pmfx export`'s targets (src/export/exportTarget.ts), kept here as words for the scripts. */
const EXPORT_TARGETS = ["kubernetes", "compose", "systemd"]
const SIGNALS = [
  "SIGHUP",
  "SIGINT",
  "SIGQUIT",
  "SIGUSR1",
  "SIGUSR2",
  "SIGTERM",
  "SIGKILL",
  "SIGCONT",
  "SIGSTOP",
  "SIGWINCH"
]

interface CommandFacts {
  readonly name: string
  readonly summary: string
  readonly options: ReadonlyArray<string>
  readonly valueOptions: ReadonlyArray<string>
  readonly choices: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
  readonly completes: Completes
  readonly subcommands: ReadonlyArray<string>
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

const facts = (model: ProgramModel): Array<CommandFacts> => {
  const top = model.commands.filter((command) => command.path.length === 1)
  return top.map((command): CommandFacts => {
    const name = command.path[0]!
    const children = model.commands.filter((other) => other.path.length === 2 && other.path[0] === name)
    const options = (c: CommandModel) => c.options.flatMap((option) => option.names)
    // A subcommand's options complete too once it is typed (`pmfx daemon restart --json`).
    const all = [command, ...children]
    return {
      name,
      summary: oneLine(catalogue[name]?.summary ?? command.description),
      options: [...new Set(all.flatMap(options))],
      valueOptions: [
        ...new Set(all.flatMap((c) => c.options.filter((o) => o.value !== undefined).flatMap((o) => o.names)))
      ],
      choices: all.flatMap((c) =>
        c.options.filter((o) => o.choices.length > 0).flatMap((o) => o.names.map((n) => [n, o.choices] as const))
      ),
      completes: catalogue[name]?.completes ?? "nothing",
      subcommands: children.map((child) => child.path[1]!)
    }
  })
}

const globalValueOptions = (model: ProgramModel) =>
  model.root.options.filter((o) => o.value !== undefined).flatMap((o) => o.names)
const globalOptions = (model: ProgramModel) => [...model.root.options.flatMap((o) => o.names), "--help"]

/** Single-quoted for sh, bash and zsh. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/** The parts bash and zsh share: the per-command settings and the choices of options. */
const shellCases = (list: ReadonlyArray<CommandFacts>, indent: string) =>
  list
    .map(
      (c) =>
        `${indent}${c.name}) opts=${quote(c.options.join(" "))}; valueopts=${quote(c.valueOptions.join(" "))}; completes=${c.completes}; subs=${quote(c.subcommands.join(" "))} ;;`
    )
    .join("\n")

const choiceCases = (list: ReadonlyArray<CommandFacts>, indent: string) =>
  list
    .flatMap((c) =>
      c.choices.map(
        ([option, values]) => `${indent}${quote(`${c.name} ${option}`)}) echo ${quote(values.join(" "))} ;;`
      )
    )
    .join("\n")

const bash = (model: ProgramModel): string => {
  const list = facts(model)
  return `# pmfx completion for bash. Load it from ~/.bashrc:
#   source <(pmfx completion bash)
# or save it once: pmfx completion bash > ~/.local/share/bash-completion/completions/pmfx

_pmfx_choices() {
  case "$1 $2" in
${choiceCases(list, "    ")}
  esac
}

_pmfx_names() {
  "\${COMP_WORDS[0]}" completion --list-names 2>/dev/null
}

_pmfx() {
  local cur prev word cmd="" at=0 i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev=""
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  COMPREPLY=()
  for (( i = 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    case "$word" in
      ${globalValueOptions(model).join("|")}) (( i++ )) ;;
      -*) ;;
      *) cmd="$word"; at=$i; break ;;
    esac
  done
  case "$prev" in
    ${globalValueOptions(model).join("|")}) return 0 ;;
  esac
  if [[ -z "$cmd" ]]; then
    if [[ "$cur" == -* ]]; then
      COMPREPLY=( $(compgen -W ${quote([...globalOptions(model), "--version"].join(" "))} -- "$cur") )
    else
      COMPREPLY=( $(compgen -W ${quote(list.map((c) => c.name).join(" "))} -- "$cur") )
    fi
    return 0
  fi
  local opts="" valueopts="" completes=nothing subs=""
  case "$cmd" in
${shellCases(list, "    ")}
    *) return 0 ;;
  esac
  if [[ -n "$prev" && " $valueopts " == *" $prev "* ]]; then
    local choices
    choices="$(_pmfx_choices "$cmd" "$prev")"
    if [[ -n "$choices" ]]; then
      COMPREPLY=( $(compgen -W "$choices" -- "$cur") )
    else
      compopt -o filenames 2>/dev/null
      COMPREPLY=( $(compgen -f -- "$cur") )
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts ${globalOptions(model).join(" ")}" -- "$cur") )
    return 0
  fi
  # How many arguments the command already has (options and their values left out).
  local count=0
  for (( i = at + 1; i < COMP_CWORD; i++ )); do
    word="\${COMP_WORDS[i]}"
    if [[ " $valueopts " == *" $word "* ]]; then (( i++ )); continue; fi
    [[ "$word" == -* ]] && continue
    (( count++ ))
  done
  if [[ -n "$subs" && $count -eq 0 ]]; then
    COMPREPLY=( $(compgen -W "$subs" -- "$cur") )
    return 0
  fi
  case "$completes" in
    apps) COMPREPLY=( $(compgen -W "$(_pmfx_names)" -- "$cur") ) ;;
    files) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") ) ;;
    apps-and-files) compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -W "$(_pmfx_names)" -- "$cur") $(compgen -f -- "$cur") ) ;;
    signals-then-apps)
      if (( count == 0 )); then
        COMPREPLY=( $(compgen -W ${quote(SIGNALS.join(" "))} -- "$cur") )
      else
        COMPREPLY=( $(compgen -W "$(_pmfx_names)" -- "$cur") )
      fi ;;
    shells) COMPREPLY=( $(compgen -W ${quote(SHELLS.join(" "))} -- "$cur") ) ;;
    targets-then-files)
      if (( count == 0 )); then
        COMPREPLY=( $(compgen -W ${quote(EXPORT_TARGETS.join(" "))} -- "$cur") )
      else
        compopt -o filenames 2>/dev/null; COMPREPLY=( $(compgen -f -- "$cur") )
      fi ;;
  esac
  return 0
}

complete -F _pmfx pmfx
`
}

const zsh = (model: ProgramModel): string => {
  const list = facts(model)
  const described = list.map((c) => quote(`${c.name}:${c.summary.replace(/:/g, "\\:")}`)).join("\n    ")
  return `#compdef pmfx
# pmfx completion for zsh. Load it from ~/.zshrc, after compinit:
#   source <(pmfx completion zsh)
# or save it as _pmfx in a folder of $fpath: pmfx completion zsh > ~/.zfunc/_pmfx

_pmfx_choices() {
  case "$1 $2" in
${choiceCases(list, "    ")}
  esac
}

_pmfx() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" word cmd="" at=0 i
  for (( i = 2; i < CURRENT; i++ )); do
    word="\${words[i]}"
    case "$word" in
      ${globalValueOptions(model).join("|")}) (( i++ )) ;;
      -*) ;;
      *) cmd="$word"; at=$i; break ;;
    esac
  done
  case "$prev" in
    ${globalValueOptions(model).join("|")}) return 0 ;;
  esac
  if [[ -z "$cmd" ]]; then
    if [[ "$cur" == -* ]]; then
      compadd -- ${[...globalOptions(model), "--version"].join(" ")}
    else
      local -a commands
      commands=(
    ${described}
      )
      _describe -t commands 'pmfx command' commands
    fi
    return 0
  fi
  local opts="" valueopts="" completes=nothing subs=""
  case "$cmd" in
${shellCases(list, "    ")}
    *) return 0 ;;
  esac
  if [[ -n "$prev" && " $valueopts " == *" $prev "* ]]; then
    local choices="$(_pmfx_choices "$cmd" "$prev")"
    if [[ -n "$choices" ]]; then compadd -- \${=choices}; else _files; fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    compadd -- \${=opts} ${globalOptions(model).join(" ")}
    return 0
  fi
  local count=0
  for (( i = at + 1; i < CURRENT; i++ )); do
    word="\${words[i]}"
    if [[ " $valueopts " == *" $word "* ]]; then (( i++ )); continue; fi
    [[ "$word" == -* ]] && continue
    (( count++ ))
  done
  if [[ -n "$subs" && $count -eq 0 ]]; then
    compadd -- \${=subs}
    return 0
  fi
  local -a names
  names=( \${(f)"$(\${words[1]} completion --list-names 2>/dev/null)"} )
  case "$completes" in
    apps) compadd -- $names ;;
    files) _files ;;
    apps-and-files) compadd -- $names; _files ;;
    signals-then-apps) if (( count == 0 )); then compadd -- ${SIGNALS.join(" ")}; else compadd -- $names; fi ;;
    shells) compadd -- ${SHELLS.join(" ")} ;;
    targets-then-files) if (( count == 0 )); then compadd -- ${EXPORT_TARGETS.join(" ")}; else _files; fi ;;
  esac
  return 0
}

if (( $+functions[compdef] )); then
  compdef _pmfx pmfx
else
  print -u2 "pmfx completion: run compinit before loading it (autoload -Uz compinit && compinit)"
fi
`
}

/** Single-quoted for fish (only \\ and ' are special inside). */
const fishQuote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

const fish = (model: ProgramModel): string => {
  const list = facts(model)
  const lines = [
    "# pmfx completion for fish. Save it once:",
    "#   pmfx completion fish > ~/.config/fish/completions/pmfx.fish",
    "",
    "function __pmfx_names",
    "    pmfx completion --list-names 2>/dev/null",
    "end",
    "",
    "complete -c pmfx -f",
    ...model.root.options.map((o) => {
      const long = o.names.filter((n) => n.startsWith("--")).map((n) => `-l ${n.slice(2)}`)
      return `complete -c pmfx ${long.join(" ")}${o.value === undefined ? "" : " -r"} -d ${fishQuote(oneLine(o.description).slice(0, 80))}`
    }),
    "complete -c pmfx -s h -l help -d 'print the help'",
    'complete -c pmfx -n __fish_use_subcommand -l version -d "print pmfx\'s version"'
  ]
  for (const c of list) {
    const when = `'__fish_seen_subcommand_from ${c.name}'`
    lines.push(`complete -c pmfx -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.summary)}`)
    for (const command of model.commands.filter((m) => m.path[0] === c.name)) {
      for (const option of command.options) {
        const flags = option.names.map((n) =>
          n.startsWith("--") ? `-l ${n.slice(2)}` : n.length === 2 ? `-s ${n.slice(1)}` : `-o ${n.slice(1)}`
        )
        const value =
          option.choices.length > 0
            ? ` -x -a ${fishQuote(option.choices.join(" "))}`
            : option.value !== undefined
              ? " -r"
              : ""
        lines.push(
          `complete -c pmfx -n ${when} ${flags.join(" ")}${value} -d ${fishQuote(oneLine(option.description).slice(0, 80))}`
        )
      }
    }
    for (const sub of c.subcommands) lines.push(`complete -c pmfx -n ${when} -a ${sub}`)
    if (c.completes === "apps" || c.completes === "apps-and-files" || c.completes === "signals-then-apps")
      lines.push(`complete -c pmfx -n ${when} -a '(__pmfx_names)'`)
    if (c.completes === "files" || c.completes === "apps-and-files" || c.completes === "targets-then-files")
      lines.push(`complete -c pmfx -n ${when} -F`)
    if (c.completes === "targets-then-files")
      lines.push(`complete -c pmfx -n ${when} -a ${fishQuote(EXPORT_TARGETS.join(" "))}`)
    if (c.completes === "signals-then-apps")
      lines.push(`complete -c pmfx -n ${when} -a ${fishQuote(SIGNALS.join(" "))}`)
    if (c.completes === "shells") lines.push(`complete -c pmfx -n ${when} -a ${fishQuote(SHELLS.join(" "))}`)
  }
  return `${lines.join("\n")}\n`
}

export const completionScript = (shell: Shell, model: ProgramModel): string =>
  shell === "bash" ? bash(model) : shell === "zsh" ? zsh(model) : fish(model)
