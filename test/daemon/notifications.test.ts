/**
 * An ecosystem file's top-level `webhooks` and `alerts` belong to the daemon (docs/architecture.md §9): they
 * are saved in state.json, come back with the next daemon before its apps do, merge by url when
 * another file is started, and can be applied again to apps that exist already.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { isAlive, request, waitFor } from "../support/daemon"
import { fixture } from "../support/engine"
import { sandboxWithReceivers } from "../support/sandboxWithReceivers"

const tests = sandboxWithReceivers()
const { listen } = tests

const readState = () => JSON.parse(fs.readFileSync(path.join(tests.sandbox().home, "state.json"), "utf8"))
const socket = () => path.join(tests.sandbox().home, "pmfx.sock")
const daemonPid = () => Number(fs.readFileSync(path.join(tests.sandbox().home, "daemon.pid"), "utf8").trim())

/** SIGTERM (systemd stop, reboot): the daemon stops its apps, keeps their desired state, and exits. */
const stopDaemonWithSigterm = async () => {
  const pid = daemonPid()
  process.kill(pid, "SIGTERM")
  await waitFor(() => !isAlive(pid), "the daemon to exit after SIGTERM")
  return pid
}

/** Starts the next daemon the way any command does when none answers. */
const startDaemonAgain = () => {
  const ping = tests.sandbox().pmfx(["ping"])
  expect(ping.code).toBe(0)
}

/** An app that exits with code 1 shortly after it starts, once per start. */
const crashingApp = (name: string) => ({
  name,
  script: fixture("crash-after.js"),
  env: { CRASH_AFTER_MS: "300" },
  autorestart: false
})

const start = (file: string) => {
  const result = tests.sandbox().pmfx(["start", file])
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
}

describe("webhooks and alert thresholds across daemon restarts", () => {
  it("a file's webhooks are saved and still deliver process_crash from the next daemon", async () => {
    const receiver = await listen()
    const hooks = [{ enabled: true, url: receiver.url, events: ["process_crash"] }]
    start(tests.sandbox().write("ecosystem.json", JSON.stringify({ apps: [crashingApp("crashy")], webhooks: hooks })))
    await waitFor(() => receiver.bodies.length >= 1, "the first daemon's crash webhook")
    expect(readState().webhooks).toEqual(hooks)

    const firstDaemon = await stopDaemonWithSigterm()
    const before = receiver.bodies.length
    const pidsBefore = new Set(receiver.bodies.map((body) => body.data.pid))
    startDaemonAgain()
    expect(daemonPid()).not.toBe(firstDaemon)
    // The old daemon is gone, so any later POST comes from the new one: its restored app crashed
    // (a new pid) and its restored webhook list delivered it.
    await waitFor(() => receiver.bodies.length > before, "a crash webhook from the new daemon")
    const latest = receiver.bodies.at(-1)
    expect(latest).toMatchObject({ event: "process_crash", process: { name: "crashy" }, data: { exit_code: 1 } })
    expect(pidsBefore.has(latest.data.pid)).toBe(false)
    expect(readState().webhooks).toEqual(hooks)
  })

  it("the global alert thresholds are saved and still raise high_memory in the next daemon", async () => {
    const receiver = await listen()
    start(
      tests.sandbox().write(
        "ecosystem.json",
        JSON.stringify({
          // high_memory is off unless a threshold is set: only the file's top-level one sets it.
          alerts: { memory: "30M" },
          webhooks: [{ url: receiver.url, events: ["high_memory"] }],
          apps: [{ name: "grower", script: fixture("grow-memory.js"), env: { GROW_TO_MB: "60" } }]
        })
      )
    )
    await waitFor(() => receiver.bodies.length >= 1, "the first daemon's high_memory webhook")
    expect(readState().alerts).toEqual({ memory: 30 * 1024 * 1024 })

    await stopDaemonWithSigterm()
    const before = receiver.bodies.length
    startDaemonAgain()
    await waitFor(() => receiver.bodies.length > before, "a high_memory webhook from the new daemon")
    expect(receiver.bodies.at(-1)).toMatchObject({
      event: "high_memory",
      process: { name: "grower" },
      data: { threshold: 30 * 1024 * 1024 }
    })
    expect(readState().alerts).toEqual({ memory: 30 * 1024 * 1024 })
  })
})

describe("webhooks and alert thresholds from several starts", () => {
  it("a second file's webhooks are merged by url; its alerts replace the thresholds", async () => {
    const [shared, onlyFirst, onlySecond] = [await listen(), await listen(), await listen()]
    start(
      tests.sandbox().write(
        "one.json",
        JSON.stringify({
          alerts: { memory: "1G", cpu_percent: 90 },
          webhooks: [
            { url: shared.url, events: ["process_crash"] },
            { url: onlyFirst.url, events: ["health_check_failure"] }
          ],
          apps: [crashingApp("one")]
        })
      )
    )
    start(
      tests.sandbox().write(
        "two.json",
        JSON.stringify({
          alerts: { memory: "2G" },
          webhooks: [
            { url: shared.url, events: ["process_crash", "restart_loop"] },
            { url: onlySecond.url, events: ["process_crash"] }
          ],
          apps: [crashingApp("two")]
        })
      )
    )
    const state = readState()
    // The shared url takes the second file's entry in place; the first file's other entry stays.
    expect(state.webhooks).toEqual([
      { enabled: true, url: shared.url, events: ["process_crash", "restart_loop"] },
      { enabled: true, url: onlyFirst.url, events: ["health_check_failure"] },
      { enabled: true, url: onlySecond.url, events: ["process_crash"] }
    ])
    expect(state.alerts).toEqual({ memory: 2 * 1024 * 1024 * 1024 })
    // A file without top-level settings leaves them as they were.
    start(
      tests.sandbox().write("three.json", JSON.stringify({ apps: [{ name: "three", script: "sleep", args: ["300"] }] }))
    )
    expect(readState()).toMatchObject({ webhooks: state.webhooks, alerts: state.alerts })
  })

  it("a failed start leaves the webhooks and thresholds as they were", async () => {
    const kept = await listen()
    start(
      tests
        .sandbox()
        .write(
          "one.json",
          JSON.stringify({ alerts: { memory: "1G" }, webhooks: [{ url: kept.url }], apps: [crashingApp("one")] })
        )
    )
    const saved = readState()
    // The name is taken: the whole start is refused, settings included.
    const refused = await request(socket(), "POST", "/api/processes", {
      apps: [crashingApp("one")],
      alerts: { memory: "5M" },
      webhooks: [{ url: "http://127.0.0.1:9/elsewhere" }]
    })
    expect(refused.status).toBe(409)
    expect(readState()).toMatchObject({ webhooks: saved.webhooks, alerts: saved.alerts })
  })

  it("the settings of a file whose apps all exist already are applied again (what start sends)", async () => {
    const old = await listen()
    const edited = await listen()
    const file = { apps: [crashingApp("crashy")], webhooks: [{ url: old.url, events: ["process_crash"] }] }
    start(tests.sandbox().write("ecosystem.json", JSON.stringify(file)))
    await waitFor(() => old.bodies.length >= 1, "the crash webhook")

    // The file was edited: the old endpoint turned off, a new one added, a threshold set. Its app
    // exists, so nothing is created, and the file's settings still apply.
    const applied = await request(socket(), "POST", "/api/processes", {
      definitions: [],
      webhooks: [
        { enabled: false, url: old.url, events: ["process_crash"] },
        { enabled: true, url: edited.url, events: ["process_crash"] }
      ],
      alerts: { memory: 64 * 1024 * 1024 }
    })
    expect(applied.status).toBe(201)
    expect(applied.body).toMatchObject({ success: true, processes: [] })
    expect(readState()).toMatchObject({
      webhooks: [
        { enabled: false, url: old.url },
        { enabled: true, url: edited.url }
      ],
      alerts: { memory: 64 * 1024 * 1024 }
    })

    const oldConnections = old.connections()
    expect((await request(socket(), "POST", "/api/processes/crashy/start")).status).toBe(200)
    await waitFor(() => edited.bodies.length >= 1, "the crash webhook at the new endpoint")
    expect(edited.bodies[0]).toMatchObject({ event: "process_crash", process: { name: "crashy" } })
    // The disabled endpoint is listed first, so its job would have been picked up first.
    expect(old.connections()).toBe(oldConnections)

    // Nothing to create and no settings: still a mistake.
    const empty = await request(socket(), "POST", "/api/processes", { definitions: [] })
    expect(empty.status).toBe(422)
  })
})
