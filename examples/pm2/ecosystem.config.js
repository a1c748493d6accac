// A typical PM2 ecosystem file, kept exactly as PM2 users write it.
// pmfx loads it unchanged: exec_mode "cluster" runs the instances as workers of one Node cluster
// primary on PORT; node_args, interpreter_args and time mean what they mean to PM2, and the
// `deploy` section is ignored with a warning.
module.exports = {
  apps: [
    {
      name: "web",
      script: "../apps/server.js",
      exec_mode: "cluster",
      instances: "max",
      node_args: "--max-old-space-size=256",
      time: true,
      max_memory_restart: "300M",
      env: {
        NODE_ENV: "development",
        PORT: 5000,
      },
      env_production: {
        NODE_ENV: "production",
      },
      watch: false,
      merge_logs: true,
    },
    {
      name: "ticker",
      script: "../apps/worker.js",
      instances: 1,
      autorestart: true,
      interpreter_args: "--trace-warnings",
      env_production: {
        TICK_MS: "5000",
      },
    },
  ],

  deploy: {
    production: {
      user: "deploy",
      host: "example.com",
      ref: "origin/main",
      repo: "git@example.com:app.git",
      path: "/srv/app",
      "post-deploy": "npm ci && pm2 reload ecosystem.config.js --env production",
    },
  },
};
