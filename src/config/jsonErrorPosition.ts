/** 1-based line and column of an offset in a text (where a parse error that gives none points). */
export const lineAndColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, Math.max(0, offset))
  const line = before.split("\n").length
  const column = offset - before.lastIndexOf("\n")
  return { line, column }
}
