// The same ecosystem as ecosystem.json, written as an ES module.
export default {
  apps: [
    {
      name: "api",
      script: "./apps/server.js",
      instances: 2,
      port: "4000-4001",
      max_memory_restart: "200M",
      kill_timeout: "3s",
      env: {
        GREETING: "hello",
      },
      health_check: {
        check_type: "http",
        url: "http://127.0.0.1:{port}/health",
        interval: 10,
        timeout: 2,
        retries: 3,
      },
    },
    {
      name: "worker",
      script: "./apps/worker.js",
      restart_delay: "1s",
      namespace: "jobs",
      env: {
        TICK_MS: "1000",
      },
    },
    {
      name: "nightly-job",
      script: "./apps/failing-job.js",
      autorestart: true,
      max_restarts: 3,
      min_uptime: "2s",
      namespace: "jobs",
      depends_on: ["api"],
    },
  ],
};
