/** Small helpers shared by the engine tests in this folder (see also test/support/engine.ts). */
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import type { PmfxEvent } from "../../src/events/PmfxEvent"
import type { RowState } from "../../src/supervisor/Row"
import type { ProcessManager } from "../../src/supervisor/ProcessManager"
import { eventually } from "../support/engine"
import { randomPortBase } from "../support/ports"

export const node = process.execPath

/** The first of a few ports below the ephemeral range (support/ports.ts), unlikely to be in use. */
export const freeBase = () => randomPortBase(100)

/** A loopback port nothing listens on: bound by the kernel's choice, then closed again. */
export const closedPort = Effect.async<number>((resume) => {
  const server = net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** Events of one tag (typed), optionally of one app. */
export const eventsOf = <T extends PmfxEvent["_tag"]>(
  events: ReadonlyArray<PmfxEvent & { readonly at: number }>,
  tag: T,
  name?: string
): Array<Extract<PmfxEvent, { _tag: T }> & { readonly at: number }> =>
  events.filter(
    (event): event is Extract<PmfxEvent, { _tag: T }> & { readonly at: number } =>
      event._tag === tag && (name === undefined || !("name" in event) || event.name === name)
  )

/** The summary rows of an app, by the target's resolution. */
export const rowsOf = (pm: ProcessManager, target: string) => pm.resolve(target)

/**
 * Records every state a row goes through (from its current one on) for the life of the scope, so a
 * test can assert on a state that lasts only a moment.
 */
export const recordStates = (pm: ProcessManager, target: string) =>
  Effect.gen(function* () {
    const [row] = yield* pm.rowsFor(target)
    const states: Array<RowState> = []
    yield* pm.changes(row!).pipe(
      Stream.runForEach((state) => Effect.sync(() => states.push(state))),
      Effect.forkScoped
    )
    yield* Effect.yieldNow()
    return states
  })

/** Start time of a live process in clock ticks since boot (/proc/<pid>/stat field 22). */
export const startTicks = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
}

/** GET a URL on loopback: status and body text. */
export const httpGet = (url: string) =>
  Effect.tryPromise(
    () =>
      // On a connection of its own, closed after the answer: one kept alive in fetch's pool held
      // the app's graceful stop (it waits for its connections) until the pool dropped it, ~4 s.
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.get(url, { agent: false }, (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("error", reject)
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })
          )
        })
        request.on("error", reject)
      })
  )

/** Waits until a recorded event satisfies `predicate` and returns the first that does. */
export const awaitEvent = <T extends PmfxEvent["_tag"]>(
  events: ReadonlyArray<PmfxEvent & { readonly at: number }>,
  tag: T,
  predicate: (event: Extract<PmfxEvent, { _tag: T }>) => boolean,
  what: string,
  timeoutMs?: number
) =>
  Effect.map(
    eventually(
      Effect.sync(() => eventsOf(events, tag).some(predicate)),
      what,
      timeoutMs
    ),
    () => eventsOf(events, tag).find(predicate)!
  )
