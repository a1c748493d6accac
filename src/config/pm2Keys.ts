/**
 * PM2 compatibility: a PM2 `ecosystem.config.js` must load unchanged (docs/architecture.md §6). Keys that only
 * make sense to PM2 are accepted and reported once as having no effect; a few PM2 spellings of
 * pmfx settings are read as those settings.
 */

/**
 * PM2 app keys pmfx accepts with no effect, each with why, shown once per file in the warning.
 * (PM2 keys pmfx honours are settings in AppSettings.ts, docs/configuration.md §3.11.)
 */
export const pm2IgnoredAppKeys: Readonly<Record<string, string>> = {
  node_arguments: "not a PM2 setting: write node_args",
  vizion: "it turns PM2's git versioning metadata on or off; pmfx keeps none",
  pmx: "it turns PM2's pmx/PM2.io probes on or off; pmfx has its own metrics (pmfx monit, /api/metrics)",
  automation: "it turns PM2's pmx/PM2.io probes on or off; pmfx has its own metrics (pmfx monit, /api/metrics)",
  trace: "it turns PM2.io transaction tracing on or off; pmfx does no tracing",
  disable_trace: "it turns PM2.io transaction tracing on or off; pmfx does no tracing",
  treekill:
    "pmfx always stops the whole process group and what escaped it: stopping only the main process would leave children the daemon no longer tracks",
  kill_retry_time:
    "pmfx sends kill_signal (SIGTERM by default), then SIGKILL once after kill_timeout: there is no kill retry loop to pace",
  force: "pmfx refuses a second app of the same name; delete it first or pick another name",
  post_update:
    "PM2 runs these commands after `pm2 deploy` or `pm2 pull` updates the code; pmfx neither deploys nor pulls code: run them in your deploy step, then `pmfx reload`",
  append_env_to_name:
    "pmfx keeps the name as written (depends_on and log file names refer to it): give each environment's app its own name",
  windowsHide: "it hides a console window on Windows; pmfx runs on Linux",
  max_memory_restart_interval: "pmfx checks max_memory_restart at every metrics sample (every second by default)"
}

/** PM2 top-level keys pmfx accepts and ignores. */
export const pm2IgnoredTopKeys: Readonly<Record<string, string>> = {
  deploy:
    "pmfx starts and supervises apps but does not deploy code (PM2's `pm2 deploy` clones and updates a repository on remote hosts over SSH): deploy with your own tooling, then run `pmfx start` or `pmfx reload` on the host"
}

/** PM2's other names of `script`; two of them in one app is a conflict, not a choice. */
export const scriptAliases: ReadonlyArray<string> = ["cmd", "command"]

/**
 * PM2 spellings read as the pmfx setting. (PM2 also spells `log_file` as `log`; pmfx reads a
 * string `log` that way and an object `log` as SPEC's nested log settings.)
 */
export const pm2Aliases: Readonly<Record<string, string>> = {
  cmd: "script",
  command: "script",
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
