/**
 * The human form of a structured error, for stderr: the code, the message, and the suggestion (an
 * invalid configuration's problems one by one, a parse error's place). It reads the error as the
 * wire carries it (`code`'s `_tag`, `message`, `details`), so the launcher's fast actions
 * (fastAction.ts) print a daemon's error exactly as the CLI does (output.ts), without Effect.
 */
import { style } from "./style"

export interface ErrorShape {
  readonly _tag: string
  readonly message: string
  readonly details: unknown
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

/** An INVALID_CONFIG problem (domain/errors.ts `ConfigProblem`). */
interface Problem {
  readonly field: string
  readonly value: unknown
  readonly message: string
  readonly suggestion: string
}

const isProblem = (value: unknown): value is Problem =>
  isRecord(value) &&
  typeof value["field"] === "string" &&
  typeof value["message"] === "string" &&
  typeof value["suggestion"] === "string"

/**
 * Whether `renderError` can show these details: what the error's schema says they are, for the
 * fields it reads. The CLI's errors are decoded already; the launcher checks a daemon's answer.
 */
export const isRenderable = (error: ErrorShape): boolean => {
  const { details } = error
  if (!isRecord(details)) return false
  if (details["suggestion"] !== undefined && typeof details["suggestion"] !== "string") return false
  if (error._tag === "INVALID_CONFIG" && details["problems"] !== undefined)
    return Array.isArray(details["problems"]) && details["problems"].every(isProblem)
  if (error._tag === "CONFIG_PARSE_ERROR")
    return (
      typeof details["file"] === "string" &&
      Number.isInteger(details["line"]) &&
      (details["column"] === undefined || Number.isInteger(details["column"]))
    )
  return true
}

export const renderError = (error: ErrorShape): string => {
  const err = process.stderr
  const lines = [`${style.red(err)(style.bold(err)(error._tag))} ${error.message}`]
  const details = isRecord(error.details) ? error.details : {}
  const problems = details["problems"]
  if (error._tag === "INVALID_CONFIG" && Array.isArray(problems) && problems.length > 0) {
    for (const problem of problems.filter(isProblem)) {
      const value = problem.value === null || problem.value === undefined ? "" : ` = ${JSON.stringify(problem.value)}`
      lines.push(`  ${style.bold(err)(problem.field || "(file)")}${style.dim(err)(value)}`)
      lines.push(`    ${problem.message}`)
      lines.push(`    ${style.cyan(err)("suggestion:")} ${problem.suggestion}`)
    }
    return lines.join("\n")
  }
  if (error._tag === "CONFIG_PARSE_ERROR") {
    const { file, line, column } = details
    lines.push(
      `  at ${String(file)}${typeof line === "number" && line > 0 ? `:${line}` : ""}${column === undefined ? "" : `:${String(column)}`}`
    )
  }
  if (typeof details["suggestion"] === "string")
    lines.push(`  ${style.cyan(err)("suggestion:")} ${details["suggestion"]}`)
  return lines.join("\n")
}
