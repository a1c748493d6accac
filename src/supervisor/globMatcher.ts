/**
 * `ignore_watch` patterns (chokidar 4 dropped glob support): `*` and `?` within a path segment,
 * `**` across segments. A pattern without a slash matches any path segment (`node_modules`,
 * `*.log`); one with a slash matches the path relative to the watched root.
 */
import * as path from "node:path"

const toRegExp = (glob: string): RegExp => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        out += ".*"
        i++
        if (glob[i + 1] === "/") i++
      } else out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  }
  return new RegExp(`^${out}$`)
}

export const makeIgnoreMatcher = (root: string, patterns: ReadonlyArray<string>): ((file: string) => boolean) => {
  const compiled = patterns.map((pattern) => {
    const trimmed = pattern.replace(/^\.\//, "").replace(/\/$/, "")
    return path.isAbsolute(trimmed)
      ? { anywhere: false, absolute: true, regexp: toRegExp(trimmed) }
      : { anywhere: !trimmed.includes("/"), absolute: false, regexp: toRegExp(trimmed) }
  })
  return (file) => {
    const relative = path.relative(root, file)
    const segments = relative.split(path.sep)
    return compiled.some((p) =>
      p.absolute
        ? p.regexp.test(file) || segments.some((_, i) => p.regexp.test(path.join(root, ...segments.slice(0, i + 1))))
        : p.anywhere
          ? segments.some((segment) => p.regexp.test(segment))
          : segments.some((_, i) => p.regexp.test(segments.slice(0, i + 1).join("/")))
    )
  }
}
