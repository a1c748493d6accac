import { describe, expect, it } from "@effect/vitest"
import { fileNameOf } from "../../src/domain/appName"
import { instanceFiles } from "../../src/domain/logPaths"

const home = "/home/me/.local/share/pmfx"

type AppFiles = Parameters<typeof instanceFiles>[0]

const app = (overrides: Partial<AppFiles> = {}): AppFiles => ({
  name: "api",
  instances: 1,
  merge_logs: false,
  out_file: null,
  error_file: null,
  log_file: null,
  pid_file: null,
  ...overrides
})

describe("instanceFiles", () => {
  it("puts default logs and pid files under home for a single instance", () => {
    expect(instanceFiles(app(), 0, home)).toStrictEqual({
      out_file: `${home}/logs/api-0-out.log`,
      error_file: `${home}/logs/api-0-err.log`,
      log_file: null,
      pid_file: `${home}/pids/api-0.pid`
    })
  })

  it("gives each of several instances its own default files", () => {
    const files = [0, 1, 2].map((i) => instanceFiles(app({ instances: 3 }), i, home))
    expect(files).toStrictEqual(
      [0, 1, 2].map((i) => ({
        out_file: `${home}/logs/api-${i}-out.log`,
        error_file: `${home}/logs/api-${i}-err.log`,
        log_file: null,
        pid_file: `${home}/pids/api-${i}.pid`
      }))
    )
  })

  it("normalises the home path", () => {
    expect(instanceFiles(app(), 0, "/srv/pmfx/").out_file).toBe("/srv/pmfx/logs/api-0-out.log")
  })

  it("shares one set of default log files between instances with merge_logs, but not the pid file", () => {
    const merged = app({ instances: 3, merge_logs: true })
    for (const i of [0, 1, 2]) {
      expect(instanceFiles(merged, i, home)).toStrictEqual({
        out_file: `${home}/logs/api-out.log`,
        error_file: `${home}/logs/api-err.log`,
        log_file: null,
        pid_file: `${home}/pids/api-${i}.pid`
      })
    }
  })

  it("uses the user's paths unchanged for a single instance", () => {
    const single = app({
      out_file: "/var/log/api/out.log",
      error_file: "/var/log/api/err.log",
      log_file: "/var/log/api/combined.log",
      pid_file: "/run/api.pid"
    })
    expect(instanceFiles(single, 0, home)).toStrictEqual({
      out_file: "/var/log/api/out.log",
      error_file: "/var/log/api/err.log",
      log_file: "/var/log/api/combined.log",
      pid_file: "/run/api.pid"
    })
  })

  it("adds -<instance> before the extension of the user's paths with several instances", () => {
    const many = app({
      instances: 3,
      out_file: "/var/log/api/out.log",
      error_file: "/var/log/api/err.txt",
      log_file: "/var/log/api/combined.log",
      pid_file: "/run/api.pid"
    })
    expect([0, 1, 2].map((i) => instanceFiles(many, i, home))).toStrictEqual(
      [0, 1, 2].map((i) => ({
        out_file: `/var/log/api/out-${i}.log`,
        error_file: `/var/log/api/err-${i}.txt`,
        log_file: `/var/log/api/combined-${i}.log`,
        pid_file: `/run/api-${i}.pid`
      }))
    )
  })

  it("appends -<instance> to a user path without an extension", () => {
    const many = app({ instances: 2, out_file: "/var/log/api.d/out", pid_file: "/run/api" })
    const files = instanceFiles(many, 1, home)
    expect(files.out_file).toBe("/var/log/api.d/out-1")
    expect(files.pid_file).toBe("/run/api-1")
  })

  it("only changes the last extension of a path with several dots", () => {
    const many = app({ instances: 2, out_file: "/var/log/api.out.log" })
    expect(instanceFiles(many, 1, home).out_file).toBe("/var/log/api.out-1.log")
  })

  it("shares the user's log paths with merge_logs, but keeps pid files per instance", () => {
    const merged = app({
      instances: 3,
      merge_logs: true,
      out_file: "/var/log/api/out.log",
      error_file: "/var/log/api/err.log",
      log_file: "/var/log/api/combined.log",
      pid_file: "/run/api.pid"
    })
    for (const i of [0, 1, 2]) {
      expect(instanceFiles(merged, i, home)).toStrictEqual({
        out_file: "/var/log/api/out.log",
        error_file: "/var/log/api/err.log",
        log_file: "/var/log/api/combined.log",
        pid_file: `/run/api-${i}.pid`
      })
    }
  })

  it("mixes user paths and defaults", () => {
    const mixed = app({ instances: 2, out_file: "/var/log/api.log" })
    expect(instanceFiles(mixed, 1, home)).toStrictEqual({
      out_file: "/var/log/api-1.log",
      error_file: `${home}/logs/api-1-err.log`,
      log_file: null,
      pid_file: `${home}/pids/api-1.pid`
    })
  })
})

describe("file form of a name", () => {
  it("is the name itself for every name valid before names were opened up", () => {
    for (const name of [
      "api",
      "worker-1",
      "api.v2",
      "a@b",
      "web:1",
      "c++",
      "x_y",
      "_hidden",
      "@scope",
      "A".repeat(100)
    ])
      expect(fileNameOf(name)).toBe(name)
  })

  it("percent-encodes the rest, a leading dot or dash too, and decodes back", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["My API", "My%20API"],
      ["api (v2)", "api%20%28v2%29"],
      ["web/admin", "web%2Fadmin"],
      ["café", "caf%C3%A9"],
      ["100%", "100%25"],
      [".env", "%2Eenv"],
      ["-x", "%2Dx"],
      ["..a", "%2E.a"],
      ["😀", "%F0%9F%98%80"]
    ]
    for (const [name, form] of cases) {
      expect(fileNameOf(name)).toBe(form)
      expect(decodeURIComponent(form)).toBe(name)
      expect(form).toMatch(/^[A-Za-z0-9_.@:+%-]+$/)
    }
  })

  it("never gives two names the same form, and stays short for long unicode names", () => {
    const names = [
      "a b",
      "a%20b",
      "a+b",
      "a:b",
      "%",
      "%25",
      "a/b",
      "a_b",
      "é",
      "e\u0301",
      "😀".repeat(50),
      "😀".repeat(49) + "😃"
    ]
    const forms = names.map(fileNameOf)
    expect(new Set(forms).size).toBe(names.length)
    for (const form of forms) expect(Buffer.byteLength(form)).toBeLessThanOrEqual(150)
    expect(fileNameOf("😀".repeat(50))).toMatch(/~[0-9a-f]{16}$/)
  })

  it("names the default log and pid files", () => {
    const files = instanceFiles(app({ name: "My API" }), 0, home)
    expect(files.out_file).toBe(`${home}/logs/My%20API-0-out.log`)
    expect(files.pid_file).toBe(`${home}/pids/My%20API-0.pid`)
  })
})
