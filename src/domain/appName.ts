/**
 * App names (docs/configuration.md, `name`): nearly any text, as in PM2 (`My API`, `api (v2)`,
 * `web/admin`, `café`), with the few limits that keep a process `{id}` unambiguous and a name
 * printable; and the one mapping from a name to the part of a file name it becomes (default log
 * and pid files under PMFX_HOME).
 */
import { createHash } from "node:crypto"

/** The longest name, in UTF-16 code units (as JavaScript counts; the HTTP router's limit for `{id}`). */
export const MAX_NAME_LENGTH = 100

export interface NameProblem {
  readonly message: string
  readonly suggestion: string
}

// C0 and C1 control characters and DEL: a name is printed in tables and log prefixes.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

const isWellFormed = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false
      i++
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false
  }
  return true
}

/** A usable name with the offending characters replaced, for suggestions. */
const tidy = (name: string): string =>
  name.replace(new RegExp(CONTROL.source, "g"), " ").trim().replace(/\s+/g, " ").slice(0, MAX_NAME_LENGTH).trim()

/**
 * Why `name` cannot name an app, or undefined when it can. Refused: empty or blank, spaces at either
 * end, only digits (a process id), `all` (the keyword), `.` and `..` (a URL path would drop them),
 * control characters, text that is not well-formed Unicode, and more than `MAX_NAME_LENGTH` units.
 */
export const nameProblem = (name: string): NameProblem | undefined => {
  if (name.trim() === "") return { message: "must not be empty", suggestion: 'give the app a name, like "api"' }
  if (/^\d+$/.test(name))
    return {
      message: `"${name}" cannot be told apart from a numeric process id`,
      suggestion: `use a name with a letter in it, like "app-${name}"`
    }
  if (name === "all")
    return {
      message: '"all" cannot be told apart from the keyword all',
      suggestion: 'use another name, like "all-apps"'
    }
  if (name === "." || name === "..")
    return {
      message: `"${name}" cannot be a name: a URL would read it as a folder`,
      suggestion: 'use a name with a letter in it, like "app"'
    }
  if (CONTROL.test(name)) {
    return {
      message: "must not hold control characters (tabs, newlines, escapes)",
      suggestion: `use a name like ${JSON.stringify(tidy(name) || "app")}`
    }
  }
  if (!isWellFormed(name))
    return { message: "is not well-formed Unicode (a lone surrogate)", suggestion: "write the name as plain text" }
  if (name.trim() !== name)
    return { message: "must not start or end with a space", suggestion: `use ${JSON.stringify(name.trim())}` }
  if (name.length > MAX_NAME_LENGTH) {
    return {
      message: `is ${name.length} characters long, more than ${MAX_NAME_LENGTH}`,
      suggestion: `use a shorter name, like ${JSON.stringify(tidy(name))}`
    }
  }
  return undefined
}

export const isUsableName = (name: string): boolean => nameProblem(name) === undefined

/** Characters a name keeps in its file form: every name valid before names were opened up is made of them. */
const KEPT = /^[A-Za-z0-9_.@:+-]$/
/** The first character is kept only if it could start a name before, so no file form starts with `.` or `-`. */
const KEPT_FIRST = /^[A-Za-z0-9_@]$/
/** The longest file form written out in full; longer ones are cut and end in `~<hash>`. */
export const MAX_FILE_FORM = 150
const HASH_LENGTH = 16

const escape = (char: string): string =>
  [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("")

/**
 * The part of a file name that stands for an app (`<home>/logs/<form>-0-out.log`): the name itself
 * when it holds only `A-Z a-z 0-9 _ . @ : + -` and starts with none of `. : + -` (every name that
 * was valid before, so their files keep their names); otherwise each other character becomes its
 * UTF-8 bytes as `%XX` (`My API` → `My%20API`, `web/admin` → `web%2Fadmin`, `.env` → `%2Eenv`).
 * `%` itself is always escaped, so two names never share a form and `decodeURIComponent` gives the
 * name back. A form longer than `MAX_FILE_FORM` is cut and ends in `~` and 16 hex digits of the
 * name's SHA-256 (`~` never appears otherwise), so the file name stays under the system's limit.
 */
export const fileNameOf = (name: string): string => {
  let form = ""
  let first = true
  for (const char of name) {
    form += (first ? KEPT_FIRST : KEPT).test(char) ? char : escape(char)
    first = false
  }
  if (form.length <= MAX_FILE_FORM) return form
  const cut = form.slice(0, MAX_FILE_FORM - HASH_LENGTH - 1).replace(/%[0-9A-F]?$/, "")
  return `${cut}~${createHash("sha256").update(name, "utf8").digest("hex").slice(0, HASH_LENGTH)}`
}
