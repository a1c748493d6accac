/** Exact body shapes of the API (docs/api.md, docs/api.md §3, §6), as vitest matchers. */
import { expect } from "@effect/vitest"
import * as net from "node:net"

/** Method and path suffix of each `/api/processes/{id}…` route (after the id). */
export const ROUTES_WITH_AN_ID: ReadonlyArray<readonly [string, string]> = [
  ["GET", ""],
  ["DELETE", ""],
  ["POST", "/start"],
  ["POST", "/stop"],
  ["POST", "/restart"],
  ["POST", "/reload"],
  ["GET", "/logs"],
  ["GET", "/metrics"]
]

export const UPTIME = /^\d+h \d+m \d+s$/
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

/** A process summary (docs/api.md §3 plus instance and namespace); `fields` override the defaults. */
export const summary = (fields: Record<string, unknown> = {}) => ({
  id: expect.any(Number),
  name: expect.any(String),
  namespace: "default",
  instance: 0,
  status: expect.any(String),
  pid: expect.any(Number),
  port: null,
  cpu_usage: expect.any(Number),
  memory_usage: expect.any(Number),
  uptime: expect.stringMatching(UPTIME),
  restarts: 0,
  health_status: "none",
  // Apps created through the API with definitions as data come from no ecosystem file.
  config_file: null,
  ...fields
})

/** `{success:true, message, processes}`, what every action answers. */
export const actionResult = (processes: ReadonlyArray<unknown>) => ({
  success: true,
  message: expect.any(String),
  processes
})

/** The structured error shape `{success:false, error:{code, message, details}}` with exact details. */
export const structured = (code: string, details: Record<string, unknown>) => ({
  success: false,
  error: { code, message: expect.any(String), details }
})

/** BAD_REQUEST's details for `field`. */
export const badRequest = (field: string) =>
  structured("BAD_REQUEST", { field, reason: expect.any(String), suggestion: expect.any(String) })

/** The simple error shape `{success:false, error}` of unknown routes and wrong methods. */
export const simpleError = { success: false, error: expect.any(String) }

/** A TCP port nothing listens on at the moment of asking. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** A listener holding a port (for PORT_IN_USE); close it when done. */
export const holdPort = (): Promise<{ readonly port: number; readonly close: () => Promise<void> }> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "0.0.0.0", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ port, close: () => new Promise<void>((done) => server.close(() => done())) })
    })
  })
