#!/usr/bin/env node
// Example job for pmfx that always fails: useful to watch restarts, max_restarts and the errored state.
"use strict";

setTimeout(() => {
  console.error("ERROR could not reach the database (simulated)");
  process.exit(1);
}, 200);
