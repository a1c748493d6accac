/**
 * Creates apps in a sandbox's daemon by POSTing to its socket, as any HTTP client may: the CLI
 * tests of the read-only commands (logs, status, show, validate) do not depend on `pmfx start`.
 */
import * as path from "node:path"
import { expect } from "vitest"
import type { Sandbox } from "../support/cli"
import { request } from "../support/daemon"

export const createApps = async (sandbox: Sandbox, body: unknown) => {
  const ping = sandbox.pmfx(["ping"])
  expect(ping.code, ping.stderr).toBe(0)
  const reply = await request(path.join(sandbox.home, "pmfx.sock"), "POST", "/api/processes", body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body as {
    readonly processes: ReadonlyArray<{ readonly id: number; readonly name: string; readonly instance: number }>
  }
}
