/** A project that uses every setting `pmfx export` maps (docs/export.md), written into a sandbox. */
import * as fs from "node:fs"
import * as path from "node:path"
import { execFileSync } from "node:child_process"
import type { Sandbox } from "../support/cli"

export const richEcosystem = {
  apps: [
    {
      name: "Web API",
      script: "./apps/server.js",
      instances: 3,
      port: "4100-4102",
      max_memory_restart: "1G",
      kill_timeout: "8s",
      min_uptime: "4s",
      listen_timeout: "8s",
      restart_delay: "2s",
      max_restarts: 5,
      env: { A: "1", QUOTED: 'say "hi" 100%' },
      env_file: "./app.env",
      user: "1000",
      group: "1000",
      umask: "022",
      stop_exit_codes: [3],
      cron_restart: "0 3 * * *",
      watch: true,
      health_check: {
        check_type: "http",
        url: "http://127.0.0.1:{port}/health?deep=1",
        interval: 5,
        timeout: 1,
        retries: 2
      }
    },
    {
      name: "checker",
      script: "./apps/check.sh",
      args: ["--loop", "a b", "$(HOME)"],
      env: { PRICE: "$5" },
      kill_timeout: "10s",
      kill_signal: "SIGINT",
      health_check: { script: "./apps/check.sh" }
    },
    { name: "migrate", script: "./apps/server.js", args: ["--migrate"], autorestart: false },
    {
      name: "reporter",
      script: "./apps/server.js",
      instances: 2,
      autostart: false,
      increment_var: "SLOT",
      env: { SLOT: "10" },
      depends_on: [
        { name: "Web API", condition: "healthy" },
        { name: "migrate", condition: "completed_successfully" },
        { name: "checker", condition: "online" }
      ]
    }
  ]
}

/** Writes the project (scripts, env file, ecosystem.json) and returns the file's path. */
export const writeRichProject = (sandbox: Sandbox): string => {
  sandbox.write("project/apps/server.js", "#!/usr/bin/env node\nsetInterval(() => {}, 1000)\n")
  const check = sandbox.write("project/apps/check.sh", "#!/bin/sh\nexit 0\n")
  fs.chmodSync(check, 0o755)
  sandbox.write("project/app.env", "FROM_FILE=yes\nB=2\n")
  return sandbox.write("project/ecosystem.json", JSON.stringify(richEcosystem, null, 2))
}

/** `systemd-analyze`, when this machine has it (Debian's `systemd` package; .ci/run installs it). */
export const systemdAnalyze = (() => {
  try {
    execFileSync("systemd-analyze", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** Every file under a folder, by path relative to it. */
export const filesUnder = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[path.relative(dir, full)] = fs.readFileSync(full, "utf8")
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return out
}
