/** `GET /api/processes/{id}/logs` through a real daemon: the JSON reads with their filters, and the Server-Sent Events follow. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { type Daemon, eventually, startDaemon } from "./daemon"
import { badRequest, ISO_UTC, structured } from "./shapes"

const fixture = (name: string) => path.resolve(__dirname, "../fixtures", name)

let daemon: Daemon
let sayFile: string
beforeAll(async () => {
  daemon = await startDaemon()
  sayFile = path.join(daemon.home, "say.txt")
  // `say` prints whatever is written to its file, once, then removes the file.
  const say = `const fs = require("fs"); setInterval(() => { try { const m = fs.readFileSync(process.env.SAY, "utf8"); fs.unlinkSync(process.env.SAY); console.log(m) } catch {} }, 50)`
  const reply = await daemon.request("POST", "/api/processes", {
    apps: [
      { name: "lines", script: fixture("log-lines.js") },
      { name: "say", script: process.execPath, args: ["-e", say], env: { SAY: sayFile } }
    ]
  })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
})
afterAll(async () => {
  await daemon?.stop()
})

type Entry = { timestamp: string; app: string; instance: number; stream: string; level: string; message: string }

const logs = async (query: string) => {
  const reply = await daemon.request("GET", `/api/processes/lines/logs${query}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as { id: string; name: string; entries: Array<Entry> }
}

describe("GET /api/processes/{id}/logs", () => {
  it("gives {id, name, entries} with every line's timestamp, app, instance, stream, level and message", async () => {
    const body = await eventually(async () => {
      const b = await logs("")
      return b.entries.length >= 7 ? b : undefined
    }, "the fixture's seven lines")
    expect(body).toEqual({ id: "lines", name: "lines", entries: expect.any(Array) })
    expect(body.entries).toHaveLength(7)
    for (const entry of body.entries) {
      expect(entry).toEqual({
        timestamp: expect.stringMatching(ISO_UTC),
        app: "lines",
        instance: 0,
        stream: expect.stringMatching(/^(out|err)$/),
        level: expect.any(String),
        message: expect.any(String)
      })
    }
    const byMessage = Object.fromEntries(body.entries.map((entry) => [entry.message, `${entry.stream}/${entry.level}`]))
    expect(byMessage).toEqual({
      "i0 hello alpha": "out/info",
      "[WARN] i0 disk almost full": "out/warn",
      "DEBUG i0 cache details": "out/debug",
      "i0 plain beta": "out/info",
      "i0 stderr beta": "err/error",
      "INFO i0 informative on stderr": "err/info",
      "FATAL i0 meltdown": "err/fatal"
    })
    const [row] = (await daemon.request("GET", "/api/processes?name=lines")).body
    const byId = await daemon.request("GET", `/api/processes/${row.id}/logs`)
    expect(byId.body).toEqual({ id: String(row.id), name: "lines", entries: body.entries })
  })

  it("filters with lines, stream, grep and level", async () => {
    const all = (await logs("")).entries
    expect((await logs("?lines=2")).entries).toEqual(all.slice(-2))
    expect((await logs("?lines=0")).entries).toEqual([])
    expect((await logs("?stream=err")).entries.map((e) => e.message)).toEqual([
      "i0 stderr beta",
      "INFO i0 informative on stderr",
      "FATAL i0 meltdown"
    ])
    expect((await logs("?stream=out")).entries.map((e) => e.message)).toEqual([
      "i0 hello alpha",
      "[WARN] i0 disk almost full",
      "DEBUG i0 cache details",
      "i0 plain beta"
    ])
    expect((await logs("?stream=all")).entries).toEqual(all)
    expect((await logs("?grep=beta")).entries.map((e) => e.message).sort()).toEqual(["i0 plain beta", "i0 stderr beta"])
    expect((await logs(`?grep=${encodeURIComponent("/ALPHA/i")}`)).entries.map((e) => e.message)).toEqual([
      "i0 hello alpha"
    ])
    expect((await logs("?level=fatal")).entries.map((e) => e.message)).toEqual(["FATAL i0 meltdown"])
    // A level keeps everything at least as severe.
    expect((await logs("?level=warn")).entries.map((e) => e.level).sort()).toEqual(["error", "fatal", "warn"])
    expect((await logs("?stream=out&grep=i0&lines=1")).entries.map((e) => e.message)).toEqual(["i0 plain beta"])
    expect((await logs("?instance=0")).entries).toEqual(all)
  })

  it("answers 400 BAD_REQUEST naming the field for bad values", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["lines=abc", "lines"],
      ["lines=-1", "lines"],
      ["lines=1.5", "lines"],
      ["lines=100000", "lines"],
      ["level=loud", "level"],
      [`grep=${encodeURIComponent("(")}`, "grep"],
      ["stream=both", "stream"],
      ["instance=x", "instance"],
      ["instance=5", "instance"],
      ["since=yesterdayish", "since"],
      ["until=2026-13-45", "until"],
      ["lines=1&lines=2", "lines"],
      ["follow=maybe", "follow"],
      ["follow=TRUE", "follow"],
      ["follow=yes", "follow"],
      ["follow=", "follow"]
    ]
    for (const [query, field] of cases) {
      const reply = await daemon.request("GET", `/api/processes/lines/logs?${query}`)
      expect(reply.status, query).toBe(400)
      expect(reply.body, query).toEqual(badRequest(field))
    }
    const unknown = await daemon.request("GET", "/api/processes/nope/logs")
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual(
      structured("PROCESS_NOT_FOUND", { process_id: "nope", suggestion: expect.any(String) })
    )
  })

  it("answers catastrophic greps at once, and other requests meanwhile (RE2 matching, issue 11)", async () => {
    // The lines: `^(a|a)*$` on 32 characters and `^(a|a?)+$` on 27 took 13 s each with RegExp.
    // Renamed into place, so the app never reads the file half-written.
    fs.writeFileSync(`${sayFile}.tmp`, `${"a".repeat(32)}\n${"a".repeat(27)}!`)
    fs.renameSync(`${sayFile}.tmp`, sayFile)
    const sayLogs = (grep: string) =>
      daemon.request(
        "GET",
        `/api/processes/say/logs?grep=${encodeURIComponent(grep)}`,
        undefined,
        {},
        { timeoutMs: 20_000 }
      )
    await eventually(
      async () => ((await sayLogs("^a{27}!$")).body.entries.length === 1 ? true : undefined),
      "the say app's lines"
    )
    const hostile = ["^(a|a)*$", "^(a|a?)+$", "^(a+)+$", "(a|aa)+$", "^(([a-z])+.)+[A-Z]([a-z])+$"]
    const others = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? daemon.request("GET", "/health") : daemon.request("GET", "/api/processes")
    )
    const [replies, otherReplies] = await Promise.all([
      Promise.all(hostile.flatMap((grep) => [sayLogs(grep), sayLogs(grep)])),
      Promise.all(others)
    ])
    for (const reply of replies) expect(reply.status).toBe(200)
    // Only the 32-character line matches (the other ends in "!"), except the last pattern, which needs a capital.
    const found = (grep: string) => (grep.includes("[A-Z]") ? [] : ["a".repeat(32)])
    expect(replies.map((reply) => reply.body.entries.map((e: Entry) => e.message))).toEqual(
      hostile.flatMap((grep) => [found(grep), found(grep)])
    )
    for (const reply of otherReplies) expect(reply.status).toBe(200)
  })

  it("refuses a grep RE2 cannot run with 400 BAD_REQUEST on grep, and the daemon carries on", async () => {
    for (const [grep, reason] of [
      ["(a)\\1", /^backreferences like \\1 are not supported/],
      ["(?<=x)a", /^lookahead and lookbehind like \(\?<=/],
      ["a(?!b)", /^lookahead and lookbehind like \(\?!/]
    ] as const) {
      const reply = await daemon.request("GET", `/api/processes/lines/logs?grep=${encodeURIComponent(grep)}`)
      expect(reply.status, grep).toBe(400)
      expect(reply.body, grep).toEqual(
        structured("BAD_REQUEST", {
          field: "grep",
          reason: expect.stringMatching(reason),
          suggestion: expect.any(String)
        })
      )
      expect(reply.body.error.message).toBe(`Invalid grep: ${reply.body.error.details.reason}`)
    }
    expect((await daemon.request("GET", "/health")).status).toBe(200)
    expect((await logs("?grep=beta")).entries.map((e) => e.message).sort()).toEqual(["i0 plain beta", "i0 stderr beta"])
  })

  it("gives a line over max_line_length as entries marked continued, sharing the first one's timestamp", async () => {
    const long = "x".repeat(2500)
    const created = await daemon.request("POST", "/api/processes", {
      name: "longline",
      script: process.execPath,
      args: ["-e", `console.log(${JSON.stringify(long)}); console.log("short"); setInterval(() => {}, 1000)`],
      max_line_length: "1K"
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const entries = await eventually(async () => {
      const reply = await daemon.request("GET", "/api/processes/longline/logs")
      return reply.body.entries.length >= 4 ? (reply.body.entries as Array<Entry & { continued?: true }>) : undefined
    }, "the long line's pieces")
    expect(entries.map((e) => [e.message.length, e.continued])).toEqual([
      [1024, undefined],
      [1024, true],
      [452, true],
      [5, undefined]
    ])
    expect(
      entries
        .slice(0, 3)
        .map((e) => e.message)
        .join("")
    ).toBe(long)
    expect(new Set(entries.slice(0, 3).map((e) => e.timestamp)).size).toBe(1)
    const refused = await daemon.request("POST", "/api/processes", {
      name: "tiny",
      script: "x.js",
      max_line_length: 10
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error.code).toBe("INVALID_CONFIG")
    expect(refused.body.error.details.problems).toEqual([
      {
        field: "apps[0].max_line_length",
        value: 10,
        message: "10 is below the minimum 1K",
        suggestion: "write a size from 1K to 16M, like 1M or 4M"
      }
    ])
    expect((await daemon.request("DELETE", "/api/processes/longline")).status).toBe(204)
  })

  it("streams new lines as Server-Sent Events with follow=true", async () => {
    const marker = `follow-marker-${Date.now()}`
    const asked = Date.now()
    let openedAfterMs = -1
    const received = await new Promise<{ headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = http.request(
        { socketPath: daemon.socket, method: "GET", path: "/api/processes/say/logs?follow=true", agent: false },
        (res) => {
          openedAfterMs = Date.now() - asked
          let text = ""
          const timer = setTimeout(() => {
            req.destroy()
            reject(new Error(`no event for the new line; got ${JSON.stringify(text)}`))
          }, 20_000)
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8")
            if (text.includes(marker) && /\n\n/.test(text.slice(text.indexOf(marker)))) {
              clearTimeout(timer)
              resolve({ headers: res.headers, text })
              req.destroy()
            }
          })
          res.on("error", () => undefined)
          // The line is written only once the stream is open, so it can only arrive as a new line.
          // Renamed into place: the app could read a file still empty, print "", and remove it.
          fs.writeFileSync(`${sayFile}.tmp`, marker)
          fs.renameSync(`${sayFile}.tmp`, sayFile)
        }
      )
      req.on("error", (error) => {
        if (!req.destroyed) reject(error)
      })
      req.end()
    })
    expect(received.headers["content-type"]).toMatch(/^text\/event-stream/)
    // The stream opens at once, not with the first line or the first keep-alive (15 s).
    expect(openedAfterMs).toBeLessThan(5_000)
    const event = received.text.split("\n\n").find((block) => block.includes(marker))!
    const lines = event.split("\n")
    expect(lines[0]).toBe("event: log")
    expect(lines[1]).toMatch(/^data: /)
    expect(JSON.parse(lines[1]!.slice("data: ".length))).toEqual({
      timestamp: expect.stringMatching(ISO_UTC),
      app: "say",
      instance: 0,
      stream: "out",
      level: "info",
      message: marker
    })
    // The daemon still answers once the follower has gone.
    expect((await daemon.request("GET", "/api/processes/say")).status).toBe(200)
  })

  it("reads normally with follow=false or follow=0", async () => {
    const plain = await logs("?lines=2")
    expect(await logs("?lines=2&follow=false")).toEqual(plain)
    expect(await logs("?lines=2&follow=0")).toEqual(plain)
  })

  it("answers 400 for bad filters before it starts a follow", async () => {
    const reply = await daemon.request("GET", "/api/processes/say/logs?follow=true&level=loud")
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual(badRequest("level"))
  })
})
