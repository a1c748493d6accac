/** Types of the parser the metrics tests use (the package ships none): prom2json's shape. */
declare module "parse-prometheus-text-format" {
  interface ParsedSample {
    readonly value: string
    readonly labels?: Readonly<Record<string, string>>
    readonly timestamp_ms?: string
  }
  interface ParsedFamily {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED"
    readonly metrics: ReadonlyArray<ParsedSample>
  }
  const parse: (text: string) => ReadonlyArray<ParsedFamily>
  export default parse
}
