/**
 * The CLI's words for a daemon answer that is no structured error and not what the command expects
 * (an unknown route, an unreadable body): most often a daemon of another pmfx version. No Effect
 * import: the launcher's fast actions (fastAction.ts) say it too.
 */
import packageJson from "../../package.json"

/** `said` is what the daemon did: `answered 404 "Not Found"`, `gave an answer this pmfx cannot read (HTTP 200)`. */
export const unexpectedAnswerText = (address: string, said: string): string =>
  [
    `pmfx: the daemon at ${address} ${said}`,
    `  suggestion: check that the daemon runs this version of pmfx (${packageJson.version}; \`pmfx ping\` shows the daemon's), and run with PMFX_DEBUG=1 for the details`
  ].join("\n")

/** What the daemon did when its body could not be read. */
export const unreadableAnswer = (status: number | undefined): string =>
  `gave an answer this pmfx cannot read${status === undefined ? "" : ` (HTTP ${status})`}`
