/**
 * What `PMFX_DEBUG=1` prints on stderr for the commands the launcher can answer itself (the plain
 * `list`, `stop`, `restart`, `delete`): src/pmfx.sh's line when it hands the command to the Node
 * launcher, then src/launcher.ts's line saying whether it answered or handed over to the CLI.
 */
export const TO_LAUNCHER = "pmfx: the CLI starts without its snapshot: the launcher answers this command itself\n"
export const FALLBACK = "pmfx: the launcher could not answer from the daemon's socket: the CLI does\n"
export const ANSWERED = "pmfx: the launcher answered from the daemon's socket\n"
