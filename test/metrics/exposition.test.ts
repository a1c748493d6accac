/**
 * The text exposition writer (src/metrics/Exposition.ts) read back by a real Prometheus parser:
 * label values with quotes, backslashes, newlines and unicode come back as they were; counters
 * must end in `_total`; bad names are refused. And the route templates of the request counter.
 */
import { describe, expect, it } from "@effect/vitest"
import { routeOf, UNMATCHED_ROUTE } from "../../src/metrics/ApiTraffic"
import { formatValue, render } from "../../src/metrics/Exposition"
import { parseExposition } from "../support/prometheus"

const TRICKY = ['we"ird', "back\\slash", "two\nlines", "ünïcødé ✓ 名前", 'all "\\\n of them', "trailing\\"]

describe("Exposition", () => {
  it("escapes label values so that a parser reads back each app name exactly", () => {
    const text = render([
      {
        name: "pmfx_test_total",
        help: "a help with a \\ backslash\nand a newline",
        type: "counter",
        samples: TRICKY.map((name, i) => ({ labels: { name, namespace: "default", instance: String(i) }, value: i }))
      },
      { name: "pmfx_empty", help: "no samples yet", type: "gauge", samples: [] }
    ])
    const exposition = parseExposition(text)
    expect(exposition.series("pmfx_test_total").map((s) => s.labels["name"])).toEqual(TRICKY)
    for (const [i, name] of TRICKY.entries()) expect(exposition.value("pmfx_test_total", { name })).toBe(i)
    expect(exposition.families.get("pmfx_test_total")!.help).toBe("a help with a \\ backslash\nand a newline")
    // A raw newline inside a label value would split the sample line.
    expect(text.split("\n").filter((line) => line.startsWith("pmfx_test_total")).length).toBe(TRICKY.length)
    expect(exposition.families.get("pmfx_empty")).toEqual({ help: "no samples yet", type: "gauge", series: [] })
  })

  it("writes numbers as Prometheus reads them", () => {
    expect([
      formatValue(0),
      formatValue(1.5),
      formatValue(43532288),
      formatValue(NaN),
      formatValue(Infinity),
      formatValue(-Infinity)
    ]).toEqual(["0", "1.5", "43532288", "NaN", "+Inf", "-Inf"])
    expect(formatValue(1e-7)).toBe("1e-7")
    expect(
      parseExposition(render([{ name: "g", help: "h", type: "gauge", samples: [{ labels: {}, value: 1e-7 }] }])).value(
        "g"
      )
    ).toBe(1e-7)
  })

  it("refuses a counter without _total and bad metric or label names", () => {
    expect(() => render([{ name: "pmfx_restarts", help: "h", type: "counter", samples: [] }])).toThrow(
      "counter pmfx_restarts must end in _total"
    )
    expect(() => render([{ name: "pmfx-bad", help: "h", type: "gauge", samples: [] }])).toThrow(
      'invalid metric name "pmfx-bad"'
    )
    expect(() =>
      render([{ name: "g", help: "h", type: "gauge", samples: [{ labels: { "a-b": "x" }, value: 1 }] }])
    ).toThrow('invalid label name "a-b" on g')
    expect(() =>
      render([{ name: "g", help: "h", type: "gauge", samples: [{ labels: { __name: "x" }, value: 1 }] }])
    ).toThrow('invalid label name "__name" on g')
  })

  it("the test parser rejects what the format forbids (so the checks above can fail)", () => {
    expect(() => parseExposition('g{name="a"b"} 1\n')).toThrow()
    expect(() => parseExposition("# HELP c counter\n# TYPE c counter\nc 1\n")).toThrow(
      "counter c does not end in _total"
    )
    expect(() => parseExposition("# TYPE g gauge\ng 1\n")).toThrow("family g has 0 HELP and 1 TYPE lines")
    expect(() => parseExposition('# HELP g h\n# TYPE g gauge\ng{a="1"} 1\ng{a="1"} 2\n')).toThrow(
      "family g has 2 sample lines for 1 series: a series appears twice"
    )
  })
})

describe("routeOf", () => {
  it("names a request by its route template, never by the id or name it carries", () => {
    expect(routeOf("/api/processes")).toBe("/api/processes")
    expect(routeOf("/api/processes?status=online")).toBe("/api/processes")
    expect(routeOf("/api/processes/my-app")).toBe("/api/processes/:id")
    expect(routeOf("/api/processes/42/restart")).toBe("/api/processes/:id/restart")
    expect(routeOf("/api/logs/flush")).toBe("/api/logs/flush")
    expect(routeOf("/metrics")).toBe("/metrics")
    expect(routeOf("/ws")).toBe("/ws")
    expect(routeOf("/")).toBe("/")
    expect(routeOf("/daemon/kill")).toBe("/daemon/kill")
    expect(routeOf("/wp-admin/setup.php")).toBe(UNMATCHED_ROUTE)
    expect(routeOf("/api/processes/a/b/c/d")).toBe(UNMATCHED_ROUTE)
  })
})
