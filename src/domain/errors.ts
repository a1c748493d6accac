/**
 * Every structured error of pmfx (docs/api.md §6 plus docs/api.md's additions), one `Schema.TaggedError`
 * class per code. The `_tag` *is* the wire code, so `Effect.catchTag("PROCESS_NOT_FOUND", ...)`
 * reads like the API documentation. Each class carries its HTTP status and CLI exit code in
 * `errorMeta`; `./ErrorWire.ts` turns each into its `{success:false, error:{code,message,details}}`
 * wire schema.
 */
import { Schema } from "effect"
import { type ErrorMeta, metaByCode } from "./errorMeta"

const suggestion = Schema.String

export class ProcessNotFound extends Schema.TaggedError<ProcessNotFound>()("PROCESS_NOT_FOUND", {
  message: Schema.String,
  details: Schema.Struct({ process_id: Schema.String, suggestion })
}) {}

export class ProcessAlreadyRunning extends Schema.TaggedError<ProcessAlreadyRunning>()("PROCESS_ALREADY_RUNNING", {
  message: Schema.String,
  details: Schema.Struct({ process_id: Schema.String, pid: Schema.Int, suggestion })
}) {}

export class ProcessAlreadyExists extends Schema.TaggedError<ProcessAlreadyExists>()("PROCESS_ALREADY_EXISTS", {
  message: Schema.String,
  details: Schema.Struct({ process_id: Schema.String, suggestion })
}) {}

export class ProcessStartFailed extends Schema.TaggedError<ProcessStartFailed>()("PROCESS_START_FAILED", {
  message: Schema.String,
  details: Schema.Struct({
    process_id: Schema.String,
    reason: Schema.String,
    /** The `depends_on` app that can no longer meet its condition, when that is why. */
    dependency: Schema.optional(Schema.String),
    condition: Schema.optional(Schema.String),
    suggestion
  })
}) {}

/** One problem found while validating a configuration. */
export const ConfigProblem = Schema.Struct({
  field: Schema.String,
  value: Schema.Unknown,
  message: Schema.String,
  suggestion
})
export type ConfigProblem = typeof ConfigProblem.Type

export class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("INVALID_CONFIG", {
  message: Schema.String,
  details: Schema.Struct({
    /** The first problem's path in the configuration, like `apps[1].max_memory_restart`. */
    field: Schema.String,
    value: Schema.Unknown,
    suggestion,
    /** The configuration file, when the definition came from one. */
    file: Schema.optional(Schema.String),
    /** Every problem found (validation reports them all at once); the first is repeated above. */
    problems: Schema.optional(Schema.Array(ConfigProblem))
  })
}) {
  /** One error that carries every problem, headed by the first. */
  static fromProblems(problems: ReadonlyArray<ConfigProblem>, file?: string): InvalidConfig {
    const first = problems[0] ?? { field: "", value: null, message: "invalid configuration", suggestion: "" }
    const where = file === undefined ? "" : ` in ${file}`
    const message =
      problems.length <= 1
        ? `${first.field}: ${first.message}`
        : `${problems.length} problems${where}; first ${first.field}: ${first.message}`
    return new InvalidConfig({
      message,
      details: {
        field: first.field,
        value: first.value,
        suggestion: first.suggestion,
        ...(file === undefined ? {} : { file }),
        problems: [...problems]
      }
    })
  }
}

export class ConfigParseError extends Schema.TaggedError<ConfigParseError>()("CONFIG_PARSE_ERROR", {
  message: Schema.String,
  details: Schema.Struct({
    file: Schema.String,
    line: Schema.Int,
    column: Schema.optional(Schema.Int),
    suggestion
  })
}) {}

export class PortInUse extends Schema.TaggedError<PortInUse>()("PORT_IN_USE", {
  message: Schema.String,
  details: Schema.Struct({ port: Schema.Int, suggestion })
}) {}

export class InsufficientResources extends Schema.TaggedError<InsufficientResources>()("INSUFFICIENT_RESOURCES", {
  message: Schema.String,
  details: Schema.Struct({ resource: Schema.String, available: Schema.Number, required: Schema.Number, suggestion })
}) {}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BAD_REQUEST", {
  message: Schema.String,
  details: Schema.Struct({ field: Schema.String, reason: Schema.String, suggestion })
}) {}

export class ReadyTimeout extends Schema.TaggedError<ReadyTimeout>()("READY_TIMEOUT", {
  message: Schema.String,
  details: Schema.Struct({
    process_id: Schema.String,
    waited_ms: Schema.Int,
    /** The state of each row when the wait gave up, by row id. */
    states: Schema.Record({ key: Schema.String, value: Schema.String })
  })
}) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("SERVICE_UNAVAILABLE", {
  message: Schema.String,
  details: Schema.Struct({ reason: Schema.String })
}) {}

/**
 * A file or folder pmfx must use cannot be: `PMFX_HOME` on a read-only file system, a file where a
 * folder must be, a path under /proc… `reason` is the system's error code (`EROFS`, `ENOTDIR`) or
 * a short phrase when the check itself refused the path.
 */
export class FileError extends Schema.TaggedError<FileError>()("FILE_ERROR", {
  message: Schema.String,
  details: Schema.Struct({
    /** The setting that names the path (`pid_file`, `out_file`, `error_file`, `log_file`, `cwd`), when one does. */
    field: Schema.optional(Schema.String),
    path: Schema.String,
    reason: Schema.String,
    suggestion
  })
}) {}

export class InternalError extends Schema.TaggedError<InternalError>()("INTERNAL_ERROR", {
  message: Schema.String,
  details: Schema.Struct({ request_id: Schema.String })
}) {}

export type PmfxError =
  | ProcessNotFound
  | ProcessAlreadyRunning
  | ProcessAlreadyExists
  | ProcessStartFailed
  | InvalidConfig
  | ConfigParseError
  | PortInUse
  | InsufficientResources
  | BadRequest
  | ReadyTimeout
  | ServiceUnavailable
  | FileError
  | InternalError

export type ErrorCode = PmfxError["_tag"]

/**
 * HTTP status (docs/api.md) and CLI exit code (docs/architecture.md §10) of each code, from
 * `errorMeta.ts` (no imports, for the launcher); the type makes it name every code above.
 */
export const errorMeta: Record<ErrorCode, ErrorMeta> = metaByCode

export { ExitCode } from "./exitCodes"

export const isPmfxError = (u: unknown): u is PmfxError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorMeta
