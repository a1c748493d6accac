/**
 * The part of `pmfx --help` that is not in the command definitions: for each command a one-line
 * summary (the list of `pmfx --help`), its usage lines, two or three examples, and what its
 * arguments complete to in a shell. The options and their descriptions are read from the
 * definitions (commandModel.ts); test/cli/help.test.ts fails when a command has no entry here,
 * when an entry names a command or an option that does not exist, or when it has too few examples.
 */

/** What a command's positional argument completes to in a shell. */
export type Completes =
  | "apps"
  | "files"
  | "apps-and-files"
  | "signals-then-apps"
  | "targets-then-files"
  | "shells"
  | "nothing"

export interface Example {
  readonly command: string
  readonly comment?: string
}

export interface CatalogueEntry {
  /** One line, lower case, no final period: the list of `pmfx --help`. */
  readonly summary: string
  /** Each begins with `pmfx <command>`. */
  readonly usage: ReadonlyArray<string>
  readonly examples: ReadonlyArray<Example>
  readonly completes: Completes
  /** The PM2 command it replaces, for `pmfx <command> --help`. */
  readonly pm2?: string
  /** The heading of the command in docs/cli.md. */
  readonly docs: string
}

const docs = (anchor: string) => `docs/cli.md#${anchor}`

/** Keyed by the command's path: `start`, `daemon restart`. */
export const catalogue: Readonly<Record<string, CatalogueEntry>> = {
  start: {
    summary: "start a command, a script, or the apps of an ecosystem file",
    usage: [
      "pmfx start <command|script|file> [options] [-- <app args>...]",
      "pmfx start --config <file> [--only a,b] [--env NAME] [--update-env] [--wait-ready] [--json]",
      "pmfx start <name|id|namespace|all>... [--json]"
    ],
    examples: [
      {
        command: 'pmfx start "node server.js" --name api -i 2 --port 4000-4001',
        comment: "two instances, one port each"
      },
      {
        command: "pmfx start app.js --watch --max-memory-restart 512M -- --verbose",
        comment: "PM2's flags; after --, the app's"
      },
      { command: "pmfx start ecosystem.config.js --env production", comment: "every app of a PM2 file" }
    ],
    completes: "files",
    pm2: "pm2 start",
    docs: docs("pmfx-start")
  },
  stop: {
    summary: "stop processes (they stay listed until deleted)",
    usage: ["pmfx stop <id|name|namespace|all>... [--json]"],
    examples: [
      { command: "pmfx stop api" },
      { command: "pmfx stop api worker 3", comment: "several at once; an unknown one is reported, the others stopped" },
      { command: "pmfx stop all" }
    ],
    completes: "apps",
    pm2: "pm2 stop",
    docs: docs("pmfx-stop")
  },
  restart: {
    summary: "stop and start processes again",
    usage: [
      "pmfx restart <id|name|namespace|all>... [--port <port>] [--update-env] [--json]",
      "pmfx restart <file> [--only a,b] [--env NAME] [--update-env] [--json]"
    ],
    examples: [
      { command: "pmfx restart api worker" },
      { command: "pmfx restart api --port 4100", comment: "this run only" },
      { command: "pmfx restart ecosystem.config.js --env production", comment: "every app with the file's definition" }
    ],
    completes: "apps-and-files",
    pm2: "pm2 restart",
    docs: docs("pmfx-restart")
  },
  reload: {
    summary: "restart with no downtime, one instance at a time",
    usage: [
      "pmfx reload <id|name|namespace|all>... [--port <port>] [--update-env] [--json]",
      "pmfx reload <file> [--only a,b] [--env NAME] [--update-env] [--json]"
    ],
    examples: [
      { command: "pmfx reload api web" },
      { command: "pmfx reload ecosystem.config.js --only api", comment: "with the file's definition" }
    ],
    completes: "apps-and-files",
    pm2: "pm2 reload",
    docs: docs("pmfx-reload")
  },
  apply: {
    summary: "make the daemon match an ecosystem file",
    usage: ["pmfx apply <file> [--prune] [--dry-run] [--only a,b] [--env NAME] [--update-env] [--json]"],
    examples: [
      { command: "pmfx apply ecosystem.config.js --dry-run", comment: "print the plan, change nothing" },
      { command: "pmfx apply ecosystem.config.js --prune", comment: "also delete the apps the file dropped" }
    ],
    completes: "files",
    docs: docs("pmfx-apply")
  },
  delete: {
    summary: "stop processes and remove them from the list",
    usage: [
      "pmfx delete <id|name|namespace|all|stopped|errored>... [--force] [--json]",
      "pmfx delete <state>[,<state>...] --status [--json]"
    ],
    examples: [
      { command: "pmfx delete api" },
      { command: "pmfx delete all --force", comment: "without asking" },
      { command: "pmfx delete errored", comment: "every errored row" }
    ],
    completes: "apps",
    pm2: "pm2 delete",
    docs: docs("pmfx-delete")
  },
  kill: {
    summary: "stop every app and the daemon (the definitions are kept)",
    usage: ["pmfx kill [--json]"],
    examples: [
      { command: "pmfx kill" },
      { command: "pmfx kill && pmfx resurrect", comment: "a fresh daemon, the same apps" }
    ],
    completes: "nothing",
    pm2: "pm2 kill",
    docs: docs("pmfx-kill")
  },
  resurrect: {
    summary: "start again the apps that should run (after pmfx kill)",
    usage: ["pmfx resurrect [--json]"],
    examples: [{ command: "pmfx resurrect" }, { command: "pmfx resurrect --json" }],
    completes: "nothing",
    pm2: "pm2 resurrect",
    docs: docs("pmfx-resurrect")
  },
  scale: {
    summary: "change an app's instance count live",
    usage: ["pmfx scale <app> <n|+n|-n> [--json]"],
    examples: [
      { command: "pmfx scale api 4", comment: "four instances" },
      { command: "pmfx scale api +2", comment: "two more" },
      { command: "pmfx scale api -1", comment: "one fewer, the highest index stops" }
    ],
    completes: "apps",
    pm2: "pm2 scale",
    docs: docs("pmfx-scale")
  },
  sendSignal: {
    summary: "send a signal to every running instance of an app",
    usage: ["pmfx sendSignal <signal> <name|id|namespace|all> [--json]"],
    examples: [
      { command: "pmfx sendSignal SIGUSR2 api" },
      { command: "pmfx sendSignal HUP all", comment: "names without SIG work, and numbers" }
    ],
    completes: "signals-then-apps",
    pm2: "pm2 sendSignal",
    docs: docs("pmfx-sendsignal")
  },
  reset: {
    summary: "zero the restart counters of apps",
    usage: ["pmfx reset <name|id|namespace|all>... [--json]"],
    examples: [{ command: "pmfx reset api" }, { command: "pmfx reset all" }],
    completes: "apps",
    pm2: "pm2 reset",
    docs: docs("pmfx-reset")
  },
  list: {
    summary: "list every process, or those of some apps or namespaces",
    usage: ["pmfx list [id|name|namespace]... [--json]"],
    examples: [
      { command: "pmfx list" },
      { command: "pmfx ls jobs", comment: "one namespace (or app, or id)" },
      { command: "pmfx list --json | jq '.[].name'" }
    ],
    completes: "apps",
    pm2: "pm2 list",
    docs: docs("pmfx-list")
  },
  logs: {
    summary: "print the log lines of every app or of one, or follow them",
    usage: ["pmfx logs [name|id|namespace|all] [--lines <n>] [--follow] [filters] [--json]"],
    examples: [
      { command: "pmfx logs api --lines 20 --raw", comment: "the messages alone, as pm2 logs --raw" },
      { command: "pmfx logs api -f --err", comment: "follow standard error" },
      { command: "pmfx logs all --since 1h --level warn --grep '/timeout/i'" }
    ],
    completes: "apps",
    pm2: "pm2 logs",
    docs: docs("pmfx-logs")
  },
  flush: {
    summary: "empty the log files of every app, or of some",
    usage: ["pmfx flush [name|id|namespace|all]... [--json]"],
    examples: [{ command: "pmfx flush", comment: "every app" }, { command: "pmfx flush api worker" }],
    completes: "apps",
    pm2: "pm2 flush",
    docs: docs("pmfx-flush")
  },
  reloadLogs: {
    summary: "reopen every log file after an outside logrotate moved them",
    usage: ["pmfx reloadLogs [--json]"],
    examples: [
      { command: "pmfx reloadLogs" },
      { command: "pmfx reloadLogs --json", comment: "which files were reopened" }
    ],
    completes: "nothing",
    pm2: "pm2 reloadLogs",
    docs: docs("pmfx-reloadlogs")
  },
  monit: {
    summary: "a live full-screen view: processes, details, logs, actions",
    usage: ["pmfx monit"],
    examples: [
      { command: "pmfx monit", comment: "j/k select, / filters the logs, q quits" },
      { command: "pmfx --url http://server:9615 monit", comment: "a remote daemon" },
      { command: "pmfx monit > snapshot.txt", comment: "not a terminal: one snapshot" }
    ],
    completes: "nothing",
    pm2: "pm2 monit",
    docs: docs("pmfx-monit")
  },
  status: {
    summary: "the daemon's status, an app's health, or a file's apps",
    usage: ["pmfx status [<file|name|id>] [--env NAME] [--json]"],
    examples: [{ command: "pmfx status" }, { command: "pmfx status api" }, { command: "pmfx status ecosystem.yaml" }],
    completes: "apps",
    docs: docs("pmfx-status")
  },
  save: {
    summary: "check that the saved state is current (PM2's save)",
    usage: ["pmfx save [--json]"],
    examples: [
      { command: "pmfx start ecosystem.config.js && pmfx save", comment: "a PM2 script, unchanged" },
      { command: "pmfx save --json" }
    ],
    completes: "nothing",
    pm2: "pm2 save",
    docs: docs("pmfx-save")
  },
  ping: {
    summary: "start the daemon if needed and check that it answers",
    usage: ["pmfx ping [--json]"],
    examples: [{ command: "pmfx ping" }, { command: "pmfx --url http://server:9615 ping", comment: "a remote daemon" }],
    completes: "nothing",
    pm2: "pm2 ping",
    docs: docs("pmfx-ping")
  },
  alerts: {
    summary: "recent alerts, or webhook deliveries and their outcome",
    usage: ["pmfx alerts [id|name|namespace] [--webhooks] [--limit n] [--json]"],
    examples: [
      { command: "pmfx alerts", comment: "the last 100 alerts, oldest first" },
      { command: "pmfx alerts api", comment: "one app's alerts" },
      { command: "pmfx alerts --webhooks --limit 5", comment: "were the last alerts delivered? (URLs redacted)" }
    ],
    completes: "apps",
    docs: docs("pmfx-alerts")
  },
  validate: {
    summary: "check an ecosystem file and report every problem in it",
    usage: ["pmfx validate <file|name|id> [--env NAME] [--strict] [--json]"],
    examples: [
      { command: "pmfx validate ecosystem.config.js --env production" },
      { command: "pmfx validate ecosystem.yaml --strict --json", comment: "in CI" }
    ],
    completes: "apps",
    docs: docs("pmfx-validate")
  },
  show: {
    summary: "a process's details, or an ecosystem file fully resolved",
    usage: ["pmfx show <file|name|id> [--env NAME] [--json]"],
    examples: [{ command: "pmfx show api" }, { command: "pmfx show ecosystem.json --env production --json" }],
    completes: "apps",
    pm2: "pm2 show / pm2 describe",
    docs: docs("pmfx-show")
  },
  env: {
    summary: "the environment an instance was started with, secrets masked",
    usage: ["pmfx env <name|id> [--show-secrets] [--json]"],
    examples: [
      { command: "pmfx env api" },
      { command: "pmfx env 3 --show-secrets", comment: "values of *KEY*, *TOKEN*… too" },
      { command: "pmfx env api --json", comment: "with where it came from and the masked keys" }
    ],
    completes: "apps",
    pm2: "pm2 env",
    docs: docs("pmfx-env")
  },
  export: {
    summary: "write a file's apps for Kubernetes, compose or systemd",
    usage: [
      "pmfx export kubernetes|compose|systemd <file> [-o dir] [--only a,b] [--env NAME] [--json]",
      "pmfx export kubernetes|compose <file> [--image image] [--root dir] [--workdir path] [--wait-image image] [--cpus n]"
    ],
    examples: [
      {
        command: "pmfx export kubernetes ecosystem.config.js --image registry.example.com/shop:1.4 -o deploy/",
        comment: "writes deploy/kubernetes.yaml"
      },
      { command: "pmfx export compose ecosystem.yaml --env production > compose.yaml" },
      { command: "sudo pmfx export systemd ecosystem.json -o /etc/systemd/system", comment: "one unit per app" }
    ],
    completes: "targets-then-files",
    docs: docs("pmfx-export")
  },
  startup: {
    summary: "print (or install) a systemd unit that starts pmfx at boot",
    usage: ["pmfx startup [systemd] [--install]"],
    examples: [
      { command: "pmfx startup > pmfx-$USER.service", comment: "look at it first" },
      { command: "sudo pmfx startup --install" }
    ],
    completes: "nothing",
    pm2: "pm2 startup",
    docs: docs("pmfx-startup")
  },
  web: {
    summary: "serve the API over TCP (or stop serving it)",
    usage: ["pmfx web [--host <host>] [--port <port>] [--api-key <key>] [options]", "pmfx web --stop [--json]"],
    examples: [
      { command: "PMFX_API_KEY=s3cret pmfx web" },
      { command: "pmfx web --host 0.0.0.0 --cors-origin https://dash.example.com", comment: "with PMFX_API_KEY set" },
      { command: "pmfx web --stop" }
    ],
    completes: "nothing",
    pm2: "pm2 web",
    docs: docs("pmfx-web")
  },
  daemon: {
    summary: "run the daemon in the foreground (systemd, containers)",
    usage: [
      "pmfx daemon [--web [--host <host>] [--port <port>]] [--config <file>] [options]",
      "pmfx daemon restart [--json]"
    ],
    examples: [
      { command: "pmfx daemon --config /srv/app/ecosystem.yaml" },
      { command: "PMFX_API_KEY=s3cret pmfx daemon --web --host 0.0.0.0" }
    ],
    completes: "nothing",
    pm2: "pm2-runtime",
    docs: docs("pmfx-daemon")
  },
  "daemon restart": {
    summary: "replace the daemon without stopping the apps",
    usage: ["pmfx daemon restart [--json]"],
    examples: [
      { command: "pmfx daemon restart", comment: "after installing a new pmfx" },
      { command: "pmfx daemon restart --json" }
    ],
    completes: "nothing",
    docs: docs("pmfx-daemon-restart-pmfx-update")
  },
  completion: {
    summary: "print a shell completion script (bash, zsh, fish)",
    usage: ["pmfx completion bash|zsh|fish"],
    examples: [
      { command: "source <(pmfx completion bash)", comment: "in ~/.bashrc" },
      { command: "source <(pmfx completion zsh)", comment: "in ~/.zshrc, after compinit" },
      { command: "pmfx completion fish > ~/.config/fish/completions/pmfx.fish" }
    ],
    completes: "shells",
    docs: docs("pmfx-completion")
  },
  update: {
    summary: "PM2's name for pmfx daemon restart (no app restarts)",
    usage: ["pmfx update [--json]"],
    examples: [{ command: "pmfx update", comment: "after installing a new pmfx" }, { command: "pmfx update --json" }],
    completes: "nothing",
    pm2: "pm2 update",
    docs: docs("pmfx-daemon-restart-pmfx-update")
  }
}

/** `pmfx --help`'s own usage and examples. */
export const rootEntry = {
  usage: ["pmfx <command> [options]", "pmfx <command> --help"],
  examples: [
    { command: 'pmfx start "node server.js" --name api', comment: "run an app" },
    { command: "pmfx list", comment: "what runs" },
    { command: "pmfx logs api -f", comment: "follow its logs" }
  ] satisfies ReadonlyArray<Example>
}
