/**
 * CLI exit codes that are not tied to an error code (docs/architecture.md §10). No imports: the
 * launcher's fast actions use them without loading Effect.
 */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  config: 3,
  notFound: 4,
  conflict: 5,
  startFailed: 6,
  daemonUnreachable: 7,
  unauthorized: 8,
  /** Applying a file (`start`/`restart`/`reload`/`apply <file>`): some apps failed, the others were applied. */
  partial: 9
} as const
