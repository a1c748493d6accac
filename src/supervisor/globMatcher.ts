/**
 * `ignore_watch` patterns (docs/configuration.md "Glob patterns"), matched by picomatch (chokidar
 * 4 dropped glob support): `*`, `?`, `**`, braces `{a,b}`, classes `[0-9]`, extglobs `+(a|b)`.
 *
 * - PM2's rule: a pattern without a slash matches any path segment (`node_modules`, `*.log`); one
 *   with a slash matches the path relative to the watched root, or an absolute path, and also
 *   every file under what it matches (`dist/cache` ignores `dist/cache/a.js`).
 * - `!pattern` brings back what an earlier pattern ignored: the last pattern that matches decides,
 *   as in a `.gitignore`. (Like git, it cannot bring back a file under an ignored folder: the
 *   watcher never goes into that folder.)
 * - Dot files are matched like any other (`*.log` ignores `.debug.log`): an ignore list is meant to
 *   leave things out, and PM2 users expect no exception for hidden files.
 */
import * as path from "node:path"
import picomatch from "picomatch"

interface Compiled {
  readonly ignore: boolean
  readonly test: (file: string, relativeSegments: ReadonlyArray<string>) => boolean
}

const compile = (root: string, written: string): Compiled => {
  const negated = written.startsWith("!") && !written.startsWith("!(")
  const trimmed = (negated ? written.slice(1) : written).trim().replace(/^\.\//, "").replace(/\/+$/, "")
  const isMatch = picomatch(trimmed, { dot: true })
  const prefixes = (segments: ReadonlyArray<string>, join: (upTo: number) => string) =>
    segments.some((_, i) => isMatch(join(i + 1)))
  const test: Compiled["test"] = path.isAbsolute(trimmed)
    ? (file, segments) => isMatch(file) || prefixes(segments, (n) => path.join(root, ...segments.slice(0, n)))
    : !trimmed.includes("/")
      ? (_file, segments) => segments.some((segment) => isMatch(segment))
      : (_file, segments) => prefixes(segments, (n) => segments.slice(0, n).join("/"))
  return { ignore: !negated, test }
}

export const makeIgnoreMatcher = (root: string, patterns: ReadonlyArray<string>): ((file: string) => boolean) => {
  const compiled = patterns.filter((p) => p.trim() !== "" && p.trim() !== "!").map((p) => compile(root, p))
  return (file) => {
    const segments = path
      .relative(root, file)
      .split(path.sep)
      .filter((s) => s !== "")
    let ignored = false
    for (const pattern of compiled)
      if (pattern.ignore !== ignored && pattern.test(file, segments)) ignored = pattern.ignore
    return ignored
  }
}
