/** The ecosystem file formats pmfx reads, chosen by file extension (docs/architecture.md §6). */
import * as path from "node:path"

export type ConfigFormat = "json" | "yaml" | "toml" | "module"

const byExtension: Readonly<Record<string, ConfigFormat>> = {
  ".json": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".toml": "toml",
  ".js": "module",
  ".cjs": "module",
  ".mjs": "module"
}

export const supportedExtensions = Object.keys(byExtension)

export const formatOf = (file: string): ConfigFormat | undefined => byExtension[path.extname(file).toLowerCase()]

/** Whether a `start` argument names an ecosystem file rather than a script (PM2 does the same). */
export const looksLikeEcosystemFile = (file: string): boolean => {
  const base = path.basename(file).toLowerCase()
  const format = formatOf(file)
  return format === "json" || format === "yaml" || format === "toml" || /\.config\.[cm]?js$/.test(base)
}
