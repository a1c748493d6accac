/**
 * PM2 compatibility: a PM2 `ecosystem.config.js` must load unchanged (DESIGN §5). Keys that only
 * make sense to PM2 are accepted and reported as ignored; a few PM2 spellings of pmfx settings are
 * read as those settings.
 */

/** PM2 app keys pmfx accepts and ignores, each with why, shown in the warning. */
export const pm2IgnoredAppKeys: Readonly<Record<string, string>> = {
  node_args: 'to pass interpreter flags, run the interpreter itself: script "node", args ["--flag", "app.js"]',
  node_arguments: 'to pass interpreter flags, run the interpreter itself: script "node", args ["--flag", "app.js"]',
  interpreter_args: 'to pass interpreter flags, run the interpreter itself: script "node", args ["--flag", "app.js"]',
  time: "pmfx prefixes every log line with a timestamp by default",
  source_map_support: "a PM2 runtime feature",
  disable_source_map_support: "a PM2 runtime feature",
  instance_var: "pmfx always sets PMFX_INSTANCE_ID and NODE_APP_INSTANCE",
  increment_var: "a PM2 runtime feature",
  filter_env: "pmfx passes the starting environment as it is",
  vizion: "a PM2 versioning feature",
  autostart: "every app in the file is started",
  treekill: "pmfx always stops the whole process group",
  pmx: "a PM2 monitoring feature",
  automation: "a PM2 monitoring feature",
  kill_retry_time: "pmfx sends SIGKILL once after kill_timeout",
  cron_restart: "scheduled restarts are not supported yet",
  force: "pmfx refuses duplicate names",
  post_update: "a PM2 deploy feature",
  trace: "a PM2 monitoring feature",
  disable_trace: "a PM2 monitoring feature",
  append_env_to_name: "a PM2 naming feature",
  windowsHide: "pmfx runs on Linux",
  stop_exit_codes: "use autorestart",
  max_memory_restart_interval: "pmfx samples memory every second"
}

/** PM2 top-level keys pmfx accepts and ignores. */
export const pm2IgnoredTopKeys: Readonly<Record<string, string>> = {
  deploy: "pmfx does not deploy code"
}

/**
 * PM2 spellings read as the pmfx setting. (PM2 also spells `log_file` as `log`; pmfx reads a
 * string `log` that way and an object `log` as SPEC's nested log settings.)
 */
export const pm2Aliases: Readonly<Record<string, string>> = {
  combine_logs: "merge_logs",
  exec_interpreter: "interpreter",
  error: "error_file",
  err: "error_file",
  err_file: "error_file",
  err_log: "error_file",
  output: "out_file",
  out: "out_file",
  out_log: "out_file",
  pid: "pid_file"
}
