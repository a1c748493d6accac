/**
 * The wire form of each structured error: `{success:false, error:{code, message, details}}`,
 * annotated with its HTTP status. Decoding the wire form gives the error class back, so the typed
 * API client can `Effect.catchTag` on what the server sent.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import * as E from "./errors"

type ErrorClassSchema<Self, Tag extends string, D> = Schema.Schema<
  Self,
  { readonly _tag: Tag; readonly message: string; readonly details: D },
  never
> & { readonly fields: { readonly details: Schema.Schema<D, D, never> } }

const wire = <Self, Tag extends string, D>(errorClass: ErrorClassSchema<Self, Tag, D>, tag: Tag) =>
  Schema.transform(
    Schema.Struct({
      success: Schema.Literal(false),
      error: Schema.Struct({
        code: Schema.Literal(tag),
        message: Schema.String,
        details: Schema.encodedSchema(errorClass.fields.details)
      })
    }),
    errorClass,
    {
      strict: true,
      decode: (w) => ({ _tag: tag, message: w.error.message, details: w.error.details }),
      encode: (e) => ({ success: false as const, error: { code: tag, message: e.message, details: e.details } })
    }
  ).annotations(HttpApiSchema.annotations({ status: E.errorMeta[tag as E.ErrorCode].status }))

export const ProcessNotFoundWire = wire(E.ProcessNotFound, "PROCESS_NOT_FOUND")
export const ProcessAlreadyRunningWire = wire(E.ProcessAlreadyRunning, "PROCESS_ALREADY_RUNNING")
export const ProcessAlreadyExistsWire = wire(E.ProcessAlreadyExists, "PROCESS_ALREADY_EXISTS")
export const ProcessStartFailedWire = wire(E.ProcessStartFailed, "PROCESS_START_FAILED")
export const InvalidConfigWire = wire(E.InvalidConfig, "INVALID_CONFIG")
export const ConfigParseErrorWire = wire(E.ConfigParseError, "CONFIG_PARSE_ERROR")
export const PortInUseWire = wire(E.PortInUse, "PORT_IN_USE")
export const InsufficientResourcesWire = wire(E.InsufficientResources, "INSUFFICIENT_RESOURCES")
export const BadRequestWire = wire(E.BadRequest, "BAD_REQUEST")
export const ReadyTimeoutWire = wire(E.ReadyTimeout, "READY_TIMEOUT")
export const ServiceUnavailableWire = wire(E.ServiceUnavailable, "SERVICE_UNAVAILABLE")
export const FileErrorWire = wire(E.FileError, "FILE_ERROR")
export const InternalErrorWire = wire(E.InternalError, "INTERNAL_ERROR")

/** Every error's wire schema, by code. */
export const errorWires = {
  PROCESS_NOT_FOUND: ProcessNotFoundWire,
  PROCESS_ALREADY_RUNNING: ProcessAlreadyRunningWire,
  PROCESS_ALREADY_EXISTS: ProcessAlreadyExistsWire,
  PROCESS_START_FAILED: ProcessStartFailedWire,
  INVALID_CONFIG: InvalidConfigWire,
  CONFIG_PARSE_ERROR: ConfigParseErrorWire,
  PORT_IN_USE: PortInUseWire,
  INSUFFICIENT_RESOURCES: InsufficientResourcesWire,
  BAD_REQUEST: BadRequestWire,
  READY_TIMEOUT: ReadyTimeoutWire,
  SERVICE_UNAVAILABLE: ServiceUnavailableWire,
  FILE_ERROR: FileErrorWire,
  INTERNAL_ERROR: InternalErrorWire
} as const

/** Any structured error in its wire form (for the CLI's `--json` output and clients). */
export const AnyErrorWire = Schema.Union(...Object.values(errorWires))

/** Encodes an error into the exact JSON body the API and the CLI's `--json` print. */
export const toWire = (error: E.PmfxError): unknown => Schema.encodeSync(AnyErrorWire)(error as never)
