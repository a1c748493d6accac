/**
 * What counts as a Node program: the rule behind PM2's `-i` (cluster mode for a Node script),
 * cluster mode's check and the interpreter pmfx picks for a `.js` file.
 */
import * as path from "node:path"

/** A `.js`, `.mjs` or `.cjs` file. */
export const isNodeScript = (script: string): boolean => /\.(js|mjs|cjs)$/i.test(script.trim())

/** Whether an interpreter is Node (`node`, `nodejs`, `node20`, or the daemon's own binary). */
export const isNodeInterpreter = (file: string): boolean =>
  file === process.execPath || /^node(js)?[\d.]*$/.test(path.basename(file.trim()))
