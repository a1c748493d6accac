import { commandWordAt } from "./commandWordAt"

/**
 * PM2's other names for pmfx commands (docs/cli.md, "Aliases"): `ls`, `l` and `ps` are `list`,
 * `jlist` and `prettylist` are `list --json`, `describe` and `info` are `show`, and a deploy
 * script's `startOrReload`/`startOrRestart <file>` are `reload`/`restart <file>` (which start the
 * file's apps the daemon does not hold, as PM2's do); `dump` is `save`, `del` is `delete`. The command word is
 * replaced before parsing, so an alias takes every option of its command.
 */
export const ALIASES: Readonly<Record<string, ReadonlyArray<string>>> = {
  ls: ["list"],
  l: ["list"],
  ps: ["list"],
  jlist: ["list", "--json"],
  prettylist: ["list", "--json"],
  describe: ["show"],
  info: ["show"],
  dump: ["save"],
  del: ["delete"],
  startOrReload: ["reload"],
  startOrGracefulReload: ["reload"],
  startOrRestart: ["restart"]
}

/** `argv` (node, script, ...args) with an alias at the command's place replaced by its command. */
export const expandAliases = (argv: ReadonlyArray<string>): Array<string> => {
  const out = [...argv]
  const at = 2 + commandWordAt(out.slice(2))
  const expansion = at < out.length ? ALIASES[out[at]!] : undefined
  if (expansion !== undefined) out.splice(at, 1, ...expansion)
  return out
}
