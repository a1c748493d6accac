/** Webhooks and alerts from an ecosystem file, through the built CLI and a real daemon. */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { fixture } from "../support/engine"

let sandbox: Sandbox
let server: http.Server | undefined
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(async () => {
  sandbox.cleanup()
  if (server !== undefined) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server!.close(() => resolve()))
    server = undefined
  }
})

const listen = async () => {
  const bodies: Array<any> = []
  server = http.createServer((request, response) => {
    let text = ""
    request.on("data", (chunk) => (text += chunk))
    request.on("end", () => {
      bodies.push(JSON.parse(text))
      response.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()))
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, bodies }
}

describe("ecosystem webhooks in the daemon", () => {
  it("pmfx start <file> applies the file's webhooks: a crash is POSTed", async () => {
    const receiver = await listen()
    const file = sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [{ name: "crashy", script: fixture("crash-after.js"), env: { CRASH_AFTER_MS: "200" }, autorestart: false }],
        webhooks: [{ enabled: true, url: receiver.url, events: ["process_crash"] }],
        alerts: { memory: "1G" }
      })
    )
    const result = await sandbox.pmfxAsync(["start", file])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    await waitFor(() => receiver.bodies.length >= 1, "the crash webhook")
    expect(receiver.bodies[0]).toMatchObject({ event: "process_crash", process: { name: "crashy" }, data: { exit_code: 1 } })
  })
})
