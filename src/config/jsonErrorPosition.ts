/**
 * Where a JSON text first goes wrong. V8's `JSON.parse` names a position for some errors and not
 * for others ("Unexpected token '}', ... is not valid JSON"), so this small scanner walks the text
 * with JSON's grammar and returns the offset of the first character that breaks it (for a trailing
 * comma, the comma itself, which may sit lines above the bracket that exposes it).
 */
export const jsonErrorOffset = (text: string): number => {
  let i = 0
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++
  }
  const fail = (): never => {
    throw i
  }
  /** Steps over a comma; one followed by `close` is the mistake, not the bracket after it. */
  const trailingComma = (close: string) => {
    const comma = i++
    ws()
    if (text[i] === close) {
      i = comma
      fail()
    }
  }
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length
    else fail()
  }
  const string = () => {
    i++ // opening quote
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i)
      if (c < 0x20) fail()
      if (text[i] === "\\") {
        i++
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail()
          i += 4
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "")) fail()
      }
      i++
    }
    if (i >= text.length) fail()
    i++
  }
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))
    if (match === null || match[0] === "") fail()
    i += match![0].length
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === "{") {
      i++
      ws()
      if (text[i] === "}") return void i++
      for (;;) {
        ws()
        if (text[i] !== '"') fail()
        string()
        ws()
        if (text[i] !== ":") fail()
        i++
        value()
        ws()
        if (text[i] === ",") trailingComma("}")
        else if (text[i] === "}") return void i++
        else fail()
      }
    } else if (c === "[") {
      i++
      ws()
      if (text[i] === "]") return void i++
      for (;;) {
        value()
        ws()
        if (text[i] === ",") trailingComma("]")
        else if (text[i] === "]") return void i++
        else fail()
      }
    } else if (c === '"') string()
    else if (c === "t") literal("true")
    else if (c === "f") literal("false")
    else if (c === "n") literal("null")
    else number()
  }
  try {
    value()
    ws()
    return i < text.length ? i : -1
  } catch (offset) {
    // Only the scanner's own throws are offsets (a stack overflow on deep nesting is not).
    if (typeof offset !== "number") throw offset
    return offset
  }
}

/** 1-based line and column of an offset. */
export const lineAndColumn = (text: string, offset: number): { line: number; column: number } => {
  const before = text.slice(0, Math.max(0, offset))
  const line = before.split("\n").length
  const column = offset - before.lastIndexOf("\n")
  return { line, column }
}
