/**
 * Reads a `GET /metrics` body with a real Prometheus text-format parser (parse-prometheus-text-format,
 * docs/decisions.md) and checks what the parser lets through: each family has exactly one HELP and
 * one TYPE line, a counter or gauge type, counters end in `_total`, every value is a number, and no
 * series appears twice.
 */
import parse from "parse-prometheus-text-format"

export interface Series {
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  readonly families: ReadonlyMap<
    string,
    { readonly help: string; readonly type: "counter" | "gauge"; readonly series: ReadonlyArray<Series> }
  >
  /** The series of `name` whose labels include `match`. */
  readonly series: (name: string, match?: Readonly<Record<string, string>>) => ReadonlyArray<Series>
  /** The value of the one series of `name` matching `match` (throws when there is not exactly one). */
  readonly value: (name: string, match?: Readonly<Record<string, string>>) => number
}

export const parseExposition = (text: string): Exposition => {
  const parsed = parse(text)
  const families = new Map<string, { help: string; type: "counter" | "gauge"; series: Array<Series> }>()
  const lines = text.split("\n")
  const comments = lines.filter((line) => line.startsWith("# "))
  for (const family of parsed) {
    if (families.has(family.name)) throw new Error(`family ${family.name} appears twice`)
    const helps = comments.filter((line) => line.startsWith(`# HELP ${family.name} `)).length
    const types = comments.filter((line) => line === `# TYPE ${family.name} ${family.type.toLowerCase()}`).length
    if (helps !== 1 || types !== 1) throw new Error(`family ${family.name} has ${helps} HELP and ${types} TYPE lines`)
    if (family.help.trim() === "") throw new Error(`family ${family.name} has an empty HELP`)
    if (family.type !== "COUNTER" && family.type !== "GAUGE")
      throw new Error(`family ${family.name} has type ${family.type}`)
    if (family.type === "COUNTER" && !family.name.endsWith("_total"))
      throw new Error(`counter ${family.name} does not end in _total`)
    // The parser keeps the last of two samples of one series: count the sample lines themselves.
    const sampleLines = lines.filter(
      (line) => line.startsWith(`${family.name}{`) || line.startsWith(`${family.name} `)
    ).length
    if (sampleLines !== family.metrics.length)
      throw new Error(
        `family ${family.name} has ${sampleLines} sample lines for ${family.metrics.length} series: a series appears twice`
      )
    const seen = new Set<string>()
    const series: Array<Series> = []
    for (const sample of family.metrics) {
      const labels = sample.labels ?? {}
      const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))
      if (seen.has(key)) throw new Error(`family ${family.name} has the series ${key} twice`)
      seen.add(key)
      const value = Number(sample.value)
      if (sample.value.trim() === "" || Number.isNaN(value))
        throw new Error(`family ${family.name} ${key} has the value ${JSON.stringify(sample.value)}`)
      if (family.type === "COUNTER" && value < 0) throw new Error(`counter ${family.name} ${key} is negative`)
      series.push({ labels, value })
    }
    families.set(family.name, { help: family.help, type: family.type === "COUNTER" ? "counter" : "gauge", series })
  }
  const select = (name: string, match: Readonly<Record<string, string>> = {}) =>
    (families.get(name)?.series ?? []).filter((s) =>
      Object.entries(match).every(([key, value]) => s.labels[key] === value)
    )
  return {
    families,
    series: select,
    value: (name, match) => {
      const found = select(name, match)
      if (found.length !== 1) throw new Error(`${found.length} series of ${name} match ${JSON.stringify(match)}`)
      return found[0]!.value
    }
  }
}
