/**
 * Keys as monit reads them from a terminal in raw mode: the bytes of one `data` event become
 * keys (arrows and paging keys arrive as escape sequences; a lone ESC is the Escape key).
 */
export type Key =
  | {
      readonly _tag: "Up" | "Down" | "PageUp" | "PageDown" | "Home" | "End" | "Enter" | "Escape" | "Backspace" | "CtrlC"
    }
  | { readonly _tag: "Char"; readonly char: string }

const SEQUENCES: ReadonlyArray<readonly [string, Key]> = [
  ["\u001b[A", { _tag: "Up" }],
  ["\u001bOA", { _tag: "Up" }],
  ["\u001b[B", { _tag: "Down" }],
  ["\u001bOB", { _tag: "Down" }],
  ["\u001b[5~", { _tag: "PageUp" }],
  ["\u001b[6~", { _tag: "PageDown" }],
  ["\u001b[H", { _tag: "Home" }],
  ["\u001bOH", { _tag: "Home" }],
  ["\u001b[1~", { _tag: "Home" }],
  ["\u001b[F", { _tag: "End" }],
  ["\u001bOF", { _tag: "End" }],
  ["\u001b[4~", { _tag: "End" }]
]

export const parseKeys = (data: string): Array<Key> => {
  const keys: Array<Key> = []
  for (let i = 0; i < data.length; ) {
    const rest = data.slice(i)
    const known = SEQUENCES.find(([sequence]) => rest.startsWith(sequence))
    if (known !== undefined) {
      keys.push(known[1])
      i += known[0].length
      continue
    }
    const char = data[i]!
    if (char === "\u001b") {
      // Another CSI/SS3 sequence (F-keys, Ctrl+arrows…) is skipped whole; a lone ESC is Escape.
      const other = /^\u001b(\[[0-9;?]*[ -/]*[@-~]|O.)/.exec(rest)
      if (other === null) keys.push({ _tag: "Escape" })
      i += other === null ? 1 : other[0].length
      continue
    }
    i++
    if (char === "\r" || char === "\n") keys.push({ _tag: "Enter" })
    else if (char === "\u007f" || char === "\b") keys.push({ _tag: "Backspace" })
    else if (char === "\u0003") keys.push({ _tag: "CtrlC" })
    else if (char >= " ") keys.push({ _tag: "Char", char })
    // Other control characters mean nothing here.
  }
  return keys
}
