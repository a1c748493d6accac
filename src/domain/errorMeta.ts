/**
 * HTTP status (docs/api.md) and CLI exit code (docs/architecture.md §10) of each error code. No
 * imports: the launcher's fast actions read the exit codes without loading Effect; errors.ts
 * checks that every error class has its entry.
 */
export interface ErrorMeta {
  readonly status: number
  readonly exitCode: number
}

export const metaByCode = {
  PROCESS_NOT_FOUND: { status: 404, exitCode: 4 },
  PROCESS_ALREADY_RUNNING: { status: 409, exitCode: 5 },
  PROCESS_ALREADY_EXISTS: { status: 409, exitCode: 5 },
  PORT_IN_USE: { status: 409, exitCode: 5 },
  INVALID_CONFIG: { status: 422, exitCode: 3 },
  PROCESS_START_FAILED: { status: 422, exitCode: 6 },
  INSUFFICIENT_RESOURCES: { status: 422, exitCode: 6 },
  CONFIG_PARSE_ERROR: { status: 400, exitCode: 3 },
  BAD_REQUEST: { status: 400, exitCode: 2 },
  READY_TIMEOUT: { status: 504, exitCode: 6 },
  SERVICE_UNAVAILABLE: { status: 503, exitCode: 7 },
  // A path that cannot be used is a setting to change (PMFX_HOME, a log or pid file), like config.
  FILE_ERROR: { status: 422, exitCode: 3 },
  INTERNAL_ERROR: { status: 500, exitCode: 1 }
} as const satisfies Record<string, ErrorMeta>

/** Whether `code` is one of pmfx's error codes. */
export const isErrorCode = (code: unknown): code is keyof typeof metaByCode =>
  typeof code === "string" && Object.hasOwn(metaByCode, code)
