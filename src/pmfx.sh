#!/bin/sh
# `pmfx`, the command-line interface (package.json "bin"; copied to dist/pmfx by the build).
#
# Starts the CLI from its startup snapshot (dist/pmfx-main.blob, docs/architecture.md §10): Node
# then begins from a heap where the CLI's code is already loaded, ~25-40 ms less CPU a command. Only
# the Node that made the snapshot can start from it, so it is used when `node` on the PATH is that
# Node (the path the build wrote in pmfx-main.blob.node), unchanged since (not newer than the
# snapshot), with no NODE_OPTIONS (flags could make Node refuse it), and PMFX_CLI_SNAPSHOT is not 0.
# Otherwise, and for the commands the Node launcher answers without the CLI bundle (the daemon;
# `list` and `list --json` of the local daemon, under PM2's names too; the plain `stop <target>`,
# `restart <target>` and `delete <target>`; the completion's names), it runs that launcher, dist/pmfx.cjs, as before.
# With PMFX_DEBUG=1 it says on stderr which way it went.

# npm links this file into node_modules/.bin: the files it starts are next to the file itself.
# (`readlink` only for a link: each program run here adds to every command's start.)
self=$0
[ -L "$self" ] && { self=$(readlink -f -- "$0" 2>/dev/null) || self=$0; }
case "$self" in */*) dist=${self%/*} ;; *) dist=. ;; esac

node=$(command -v node) || {
  echo "pmfx: node was not found on the PATH: install Node.js 20 or later, or add it to the PATH" >&2
  exit 127
}

# Whether `stop`/`restart`/`delete` arguments are the plain form the launcher answers: one target of
# letters, digits, _ and -, with --json (and delete's --force/-f), no PMFX_URL, and no `delete all` that asks
# on a terminal. src/cli/fastAction.ts decides; this only keeps the snapshot for the other forms.
plain_action() {
  [ -z "${PMFX_URL:-}" ] || return 1
  verb=$1
  shift
  target= force= seen=
  for arg in "$@"; do
    case " $seen " in *" $arg "*) return 1 ;; esac
    seen="$seen $arg"
    case "$arg" in
      --json) ;;
      --force | -f)
        case "$verb" in delete | del) force=1 ;; *) return 1 ;; esac
        ;;
      -* | "" | *[!A-Za-z0-9_-]*) return 1 ;;
      *) [ -z "$target" ] || return 1; target=$arg ;;
    esac
  done
  [ -n "$target" ] || return 1
  case "$verb" in delete | del) [ "$target" = all ] && [ -z "$force" ] && [ -t 0 ] && return 1 ;; esac
  return 0
}

# Why the snapshot is not used; empty when it is.
without=
case "$1" in
  daemon) [ "$2" = restart ] || without="the launcher runs this command itself" ;;
  jlist | prettylist) [ $# -eq 1 ] && [ -z "${PMFX_URL:-}" ] && without="the launcher answers this command itself" ;;
  list | ls | l | ps) { [ $# -eq 1 ] || { [ $# -eq 2 ] && [ "$2" = --json ]; }; } && [ -z "${PMFX_URL:-}" ] &&
    without="the launcher answers this command itself" ;;
  stop | restart | delete | del) plain_action "$@" && without="the launcher answers this command itself" ;;
  completion) [ $# -eq 2 ] && [ "$2" = --list-names ] && without="the launcher answers this command itself" ;;
esac
if [ -z "$without" ]; then
  if [ "${PMFX_CLI_SNAPSHOT:-}" = 0 ]; then
    without="PMFX_CLI_SNAPSHOT=0"
  elif [ -n "${NODE_OPTIONS:-}" ]; then
    without="NODE_OPTIONS is set"
  elif ! [ -r "$dist/pmfx-main.blob" ] || ! [ -r "$dist/pmfx-main.blob.node" ]; then
    without="the build made none (npm run build makes it)"
  else
    real=$node
    [ -L "$real" ] && { real=$(readlink -f -- "$node" 2>/dev/null) || real=$node; }
    IFS= read -r made_by <"$dist/pmfx-main.blob.node" || made_by=
    if [ "$real" != "$made_by" ]; then
      without="it was made by $made_by, and node on the PATH is $real (npm run build makes one for it)"
    elif [ "$real" -nt "$dist/pmfx-main.blob" ]; then
      without="$real changed after it was made (npm run build makes it again)"
    fi
  fi
fi

debug=
case "${PMFX_DEBUG:-0}" in "" | 0) ;; *) debug=1 ;; esac
if [ -z "$without" ]; then
  [ -n "$debug" ] && echo "pmfx: the CLI starts from its snapshot, $dist/pmfx-main.blob" >&2
  exec "$real" --snapshot-blob "$dist/pmfx-main.blob" "$dist/pmfx.cjs" "$@"
fi
[ -n "$debug" ] && echo "pmfx: the CLI starts without its snapshot: $without" >&2
exec "$node" "$dist/pmfx.cjs" "$@"
