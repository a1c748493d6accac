#!/usr/bin/env node
// Example background worker for pmfx: logs a tick to stdout, and a warning to stderr every 5th tick.
"use strict";

const TICK_MS = Number(process.env.TICK_MS || 1000);
const INSTANCE = process.env.PMFX_INSTANCE_ID ?? process.env.NODE_APP_INSTANCE ?? "0";

let tick = 0;
const timer = setInterval(() => {
  tick += 1;
  console.log(`INFO tick ${tick} from instance ${INSTANCE}`);
  if (tick % 5 === 0) console.error(`WARN tick ${tick} is a multiple of five`);
}, TICK_MS);

function shutdown() {
  clearInterval(timer);
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
