/**
 * `pmfx start <file>` applies the file's top-level `webhooks` on every start, also when all its
 * apps exist already (src/cli/commands/start.ts: "The file's latest webhooks and alerts apply even
 * when no app is new"), merged into the daemon's list by url (docs/decisions.md, "Webhooks merge
 * by url; `alerts` replaces"): an entry dropped from the file stays, `enabled: false` turns it off.
 * Everything runs through the built binary, a real daemon and real HTTP receivers.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type WebhookReceiver } from "../support/webhookReceiver"
import { eventually, fixtures, json, list, ok, type Row } from "./helpers"
import { sandboxWithReceivers } from "../support/sandboxWithReceivers"

interface WebhookBody {
  readonly event: string
  readonly process: { readonly id: number; readonly name: string }
  readonly data: Record<string, unknown>
  readonly timestamp: string
}

/** A receiver whose bodies are read as webhook bodies. */
type Receiver = WebhookReceiver & { readonly bodies: Array<WebhookBody> }

const tests = sandboxWithReceivers()
const listen = (): Promise<Receiver> => tests.listen()

const APP = "crasher"

/**
 * An app that exits with code 1 after 200 ms, before `min_uptime` (1 s): every exit is an
 * unstable restart, so after `max_restarts` of them it gives up (errored) — a few crashes per
 * start, never an endless loop. Started 1 + max_restarts times (docs/decisions.md), so each start
 * makes CRASHES_PER_START crashes.
 */
const crashingApp = {
  name: APP,
  script: path.join(fixtures, "crash-after.js"),
  env: { CRASH_AFTER_MS: "200" },
  min_uptime: "1s",
  restart_delay: "100ms",
  max_restarts: 2
}

const CRASHES_PER_START = crashingApp.max_restarts + 1

const hook = (url: string, enabled = true) => ({ enabled, url, events: ["process_crash"] })

const writeFile = (webhooks: ReadonlyArray<ReturnType<typeof hook>>) =>
  tests.sandbox().write("eco.json", JSON.stringify({ webhooks, apps: [crashingApp] }, null, 2))

const readState = () =>
  JSON.parse(fs.readFileSync(path.join(tests.sandbox().home, "state.json"), "utf8")) as {
    webhooks?: unknown
    processes?: unknown
  }

const row = (): Row => {
  const rows = list(tests.sandbox()).filter((r) => r.name === APP)
  expect(rows).toHaveLength(1)
  return rows[0]!
}

/** The app's process_crash bodies a receiver got whose alert was raised at or after `since`. */
const crashesSince = (receiver: Receiver, since: number) =>
  receiver.bodies.filter(
    (body) => body.event === "process_crash" && body.process.name === APP && Date.parse(body.timestamp) >= since
  )

/** Waits until the app has used up its restarts (errored), and returns its row. */
const untilErrored = () =>
  eventually(() => {
    const current = row()
    expect(current.status).toBe("errored")
    return current
  }, 45_000)

/** `pmfx stop <app>` on the errored app: it succeeds, and the app stays down (stop keeps `errored`). */
const stopApp = () => {
  ok(tests.sandbox(), ["stop", APP])
  const current = row()
  expect(["stopped", "errored"]).toContain(current.status)
  expect(current.pid).toBeNull()
}

/** Waits until `receiver` has every crash of one start (raised at or after `since`). */
const allCrashesOfOneStart = (receiver: Receiver, since: number) =>
  eventually(() => {
    const crashes = crashesSince(receiver, since)
    expect(crashes, `process_crash bodies at ${receiver.url} since that start`).toHaveLength(CRASHES_PER_START)
    return crashes
  }, 30_000)

/** `pmfx start eco.json --json`, which must succeed and report the app. */
const startFile = (file: string) => {
  const result = ok(tests.sandbox(), ["start", file, "--json"])
  expect(result.stderr).toBe("")
  const rows = json<{ processes: Array<Row> }>(result).processes
  expect(rows.map((r) => r.name)).toEqual([APP])
  // Started afresh (a stopped or errored app runs again).
  expect(rows[0]!.status).not.toBe("errored")
  expect(rows[0]!.pid).toEqual(expect.any(Number))
  return rows[0]!
}

describe("pmfx start <file> with top-level webhooks", () => {
  it("re-applies the file's webhooks when its app exists already, merged by url", async () => {
    const [a, b] = [await listen(), await listen()]

    // 1. A new app: the file's webhook (receiver A) comes with it, and A gets its crashes.
    const file = writeFile([hook(a.url)])
    const t1 = Date.now()
    const created = startFile(file)
    const firstCrash = await eventually(() => {
      const [crash] = crashesSince(a, t1)
      expect(crash, "receiver A got no process_crash from the first start").toBeDefined()
      return crash!
    }, 30_000)
    expect(firstCrash).toEqual({
      event: "process_crash",
      process: { id: created.id, name: APP },
      data: expect.objectContaining({
        instance: 0,
        exit_code: 1,
        signal: null,
        message: expect.stringContaining(`${APP} (id ${created.id}) crashed`)
      }),
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    })
    // It crashes a few times and then gives up (max_restarts), each crash delivered to A.
    await untilErrored()
    for (const crash of await allCrashesOfOneStart(a, t1)) expect(crash.process).toEqual({ id: created.id, name: APP })
    expect(b.bodies).toEqual([])
    await eventually(() => expect(readState().webhooks).toEqual([hook(a.url)]))

    // 2. The file now names receiver B instead; the app exists, so nothing is created and the CLI
    //    must apply the file's webhooks on its own before starting the app again.
    writeFile([hook(b.url)])
    stopApp()
    const t2 = Date.now()
    const restarted = startFile(file)
    expect(restarted.id).toBe(created.id)
    expect(list(tests.sandbox())).toHaveLength(1)
    const crashAtB = await eventually(() => {
      const [crash] = crashesSince(b, t2)
      expect(crash, "receiver B got no process_crash: the second start did not apply the file's webhooks").toBeDefined()
      return crash!
    }, 30_000)
    expect(crashAtB).toMatchObject({
      event: "process_crash",
      process: { id: created.id, name: APP },
      data: { exit_code: 1, instance: 0 }
    })
    // Merged by url, not replaced: A was only left out of the file, so it stays in the daemon's
    // list, still enabled, and keeps getting the app's crashes.
    await eventually(() => expect(readState().webhooks).toEqual([hook(a.url), hook(b.url)]))
    await untilErrored()
    await allCrashesOfOneStart(b, t2)
    await allCrashesOfOneStart(a, t2)

    // 3. `enabled: false` is the way to turn A off: started again, the file keeps B and disables
    //    A in place (same url: the newer `enabled`/`events` win).
    writeFile([hook(a.url, false), hook(b.url)])
    stopApp()
    const t3 = Date.now()
    startFile(file)
    await eventually(() => expect(readState().webhooks).toEqual([hook(a.url, false), hook(b.url)]))
    await untilErrored()
    // Every crash of this run reaches B...
    for (const crash of await allCrashesOfOneStart(b, t3)) expect(crash.process).toEqual({ id: created.id, name: APP })
    // ...and none reaches A (its jobs would have been queued with B's, for the same alerts).
    expect(crashesSince(a, t3)).toEqual([])

    expect(a.rejected).toEqual([])
    expect(b.rejected).toEqual([])
  })
})
