/**
 * What a test on a shared daemon leaves for the next one (test/cli/sharedSandbox.ts,
 * test/api/sharedDaemon.ts): every app deleted, every process of the home but the daemon gone
 * (waited for), and the apps' log files removed — a deleted app's files stay, as PM2's do, so the
 * next test's app of that name would start with old ones. The next test starts from an empty
 * table, as with a new daemon; only ids keep counting up (they are never reused).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "vitest"
import { processesOfHome } from "./cli"
import { request, waitFor } from "./daemon"

export const emptySharedHome = async (home: string, socket: string, daemonPid: number): Promise<void> => {
  const deleted = await request(socket, "DELETE", "/api/processes/all")
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(204)
  await waitFor(
    () => processesOfHome(home).every((pid) => pid === daemonPid),
    "every process of the shared home but the daemon to be gone"
  )
  const logs = path.join(home, "logs")
  for (const file of fs.existsSync(logs) ? fs.readdirSync(logs) : [])
    fs.rmSync(path.join(logs, file), { force: true, recursive: true })
}
