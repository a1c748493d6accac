/** Rows and details for monit's pure tests. */
import type { ProcessDetail } from "../../../src/domain/ProcessDetail"
import type { ProcessSummary } from "../../../src/domain/ProcessSummary"

export const row = (fields: Partial<ProcessSummary>): ProcessSummary => ({
  id: 0,
  name: "api",
  namespace: "default",
  instance: 0,
  status: "online",
  pid: 4242,
  port: "4000",
  cpu_usage: 12.5,
  memory_usage: 40 * 1024 * 1024,
  uptime: "0h 3m 2s",
  restarts: 1,
  health_status: "healthy",
  ...fields
})

export const detail = (summary: ProcessSummary, fields: Partial<ProcessDetail> = {}): ProcessDetail => ({
  ...summary,
  app_instances: [summary.id],
  config: {
    script: "/srv/api/server.js",
    args: ["--verbose"],
    shell: null,
    instances: 1,
    exec_mode: "fork",
    max_memory_restart: null,
    port: summary.port,
    env: {},
    cwd: "/srv/api",
    depends_on: [],
    ready_log_line: null,
    config_file: "/srv/api/ecosystem.config.js",
    autorestart: true,
    watch: { enabled: false, paths: [], ignore: [] }
  },
  waiting_for: null,
  health_check: {
    enabled: true,
    check_type: "http",
    url: "http://127.0.0.1:{port}/health",
    status: "healthy",
    last_check: null,
    response_time: 11
  },
  logs: { out_file: "/tmp/api-0-out.log", error_file: "/tmp/api-0-err.log" },
  cron_restart: null,
  last_exit: null,
  ...fields
})
