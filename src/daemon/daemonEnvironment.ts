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
 * - to apps, from the daemon: the listener's keys (a foreground `pmfx daemon` may hold them) and
 *   PMFX_RUN_ID (each run sets its own).
 */

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
  ...strings(caller, NOT_FOR_THE_DAEMON),
  PMFX_HOME: home
})

/** What apps created without a caller's environment (the API's settings form, `--config`) start from. */
export const daemonEnvironmentForApps = (
  daemon: Readonly<Record<string, string | undefined>> = process.env
): Record<string, string> => strings(daemon, NOT_FOR_APPS)
