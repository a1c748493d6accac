/**
 * PM2 reads a file holding one app's settings, or a list of apps, as the app list: `{"script":
 * "app.js"}` and `[{…}, {…}]` mean `{"apps": [...]}` (docs/configuration.md, "File forms").
 */
import { isRecord } from "./mergeSettings"

/** Keys only an app has; an object holding one (and no `apps`) is one app. */
const SCRIPT_KEYS = ["script", "cmd", "command"]

/** The document as `{apps: [...]}` when it is a bare app or a bare list of apps; otherwise as it is. */
export const asEcosystem = (doc: unknown): unknown => {
  if (Array.isArray(doc)) return { apps: doc }
  if (isRecord(doc) && !("apps" in doc) && SCRIPT_KEYS.some((key) => key in doc)) return { apps: [doc] }
  return doc
}
