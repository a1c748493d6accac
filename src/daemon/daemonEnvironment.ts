/**
 * The daemon's environment and what apps get of it (docs/configuration.md, "The daemon's
 * environment"). A daemon the CLI starts inherits the environment of that CLI call, as PM2's
 * does, so commands resolve through its PATH and apps created over the API see HOME, LANG…
 * A few variables never pass:
 *
 * - to the daemon: PMFX_URL / PMFX_API_KEY / PMFX_READONLY_API_KEY (they connect a CLI to some
 *   daemon; a key in the daemon's environment could end up in its apps), PMFX_RUN_ID (set when the
 *   CLI runs inside an app: the daemon would count as a process of that app's run and be stopped
 *   with it) and NODE_OPTIONS (it would change the daemon's own Node: a `--require`, an inspector);
 * - to apps, from the daemon: the listener's keys (a foreground `pmfx daemon` may hold them),
 *   PMFX_RUN_ID (each run sets its own) and the daemon's own malloc settings (below).
 */

/**
 * glibc's malloc settings for the daemon, given to a daemon the CLI starts (and written into the
 * systemd unit) unless the caller has GLIBC_TUNABLES of its own. Free memory at the top of the C
 * heap goes back past 64 KiB (glibc's default is 128 KiB, and its threshold for giving large
 * blocks pages of their own grows up to 32 MiB as the process frees them, after which they stay
 * in the heap); 128 KiB is that threshold for good. V8 compiling again what the settling
 * collection dropped (settleMemory.ts) would otherwise leave its parser's memory in the C heap.
 * Not lower: at 16 KiB each 64 KiB read buffer of the log path became an mmap/munmap pair, and
 * 300,000 log lines took ~10 % longer. Ignored by other C libraries. Measured with it: RSS −1.7
 * MB with 10 idle apps, −3.2 MB with 60 (docs/benchmarks.md, "The daemon's memory, fourth pass").
 */
export const DAEMON_MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=65536"

/** Variables of a CLI call that are not handed to the daemon it starts. */
const NOT_FOR_THE_DAEMON = new Set(["PMFX_URL", "PMFX_API_KEY", "PMFX_READONLY_API_KEY", "PMFX_RUN_ID", "NODE_OPTIONS"])

/** Variables of the daemon that no app (or health check script) gets. */
const NOT_FOR_APPS = new Set(["PMFX_API_KEY", "PMFX_READONLY_API_KEY", "PMFX_RUN_ID"])

const strings = (
  env: Readonly<Record<string, string | undefined>>,
  left: ReadonlySet<string>
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string" && !left.has(entry[0])
    )
  )

/** The environment of a daemon started in the background by a CLI call with `caller`'s. */
export const environmentForDaemon = (
  caller: Readonly<Record<string, string | undefined>>,
  home: string
): Record<string, string> => ({
  ...(caller.GLIBC_TUNABLES === undefined ? { GLIBC_TUNABLES: DAEMON_MALLOC_TUNABLES } : {}),
  ...strings(caller, NOT_FOR_THE_DAEMON),
  PMFX_HOME: home
})

/**
 * What apps created without a caller's environment (the API's settings form, `--config`) start
 * from: the daemon's, without its keys, its run id, and its malloc settings when they are pmfx's.
 */
export const daemonEnvironmentForApps = (
  daemon: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> => {
  const env = strings(daemon, NOT_FOR_APPS)
  if (env.GLIBC_TUNABLES === DAEMON_MALLOC_TUNABLES) delete env.GLIBC_TUNABLES
  return env
}
