#!/usr/bin/env node
// Example HTTP app for pmfx: answers GET /health and a JSON hello on any other path.
"use strict";
const http = require("http");

// Every interface, as most servers listen: in a container or a Kubernetes pod (`pmfx export`),
// probes and Services reach the app from outside its loopback. HOST=127.0.0.1 keeps it local.
const HOST = process.env.HOST || "0.0.0.0";
const PORT = Number(process.env.PORT || 3000);
const rawInstance = process.env.PMFX_INSTANCE_ID ?? process.env.NODE_APP_INSTANCE ?? "0";
const INSTANCE = /^\d+$/.test(rawInstance) ? Number(rawInstance) : rawInstance;

const server = http.createServer((req, res) => {
  const path = (req.url || "/").split("?")[0];
  const body =
    req.method === "GET" && path === "/health"
      ? { status: "ok", instance: INSTANCE, pid: process.pid }
      : { message: `${process.env.GREETING || "hello"} from pmfx example server`, instance: INSTANCE, port: PORT };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body) + "\n");
});

server.listen(PORT, HOST, () => {
  console.log(`listening on ${HOST}:${PORT} (instance ${INSTANCE})`);
});

function shutdown(signal) {
  console.log(`received ${signal}, closing server`);
  server.close(() => process.exit(0));
  if (server.closeAllConnections) server.closeAllConnections();
  // Never hang on lingering connections.
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
