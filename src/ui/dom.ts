/** A tiny DOM builder: no framework (docs/decisions.md), every element made with createElement. */
type Child = Node | string | number | null | undefined | false
type Attrs = Readonly<Record<string, string | number | boolean | null | undefined | EventListener>>

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: ReadonlyArray<Child>
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value)
    else if (value === true) element.setAttribute(name, "")
    else element.setAttribute(name, String(value))
  }
  append(element, children)
  return element
}

export const append = (parent: Node, children: ReadonlyArray<Child>): void => {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)))
  }
}

const SVG = "http://www.w3.org/2000/svg"
export const svg = (
  tag: string,
  attrs: Readonly<Record<string, string | number>> = {},
  ...children: ReadonlyArray<Node>
): SVGElement => {
  const element = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value))
  for (const child of children) element.appendChild(child)
  return element
}

export const replaceChildren = (parent: Element, ...children: ReadonlyArray<Child>): void => {
  parent.textContent = ""
  append(parent, children)
}

export const bytes = (n: number): string => {
  if (n < 1024) return `${n} B`
  const units = ["KB", "MB", "GB", "TB"]
  let value = n / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}
