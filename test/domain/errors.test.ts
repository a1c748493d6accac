import { HttpApiSchema } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as W from "../../src/domain/ErrorWire"
import * as E from "../../src/domain/errors"

/** A realistic instance of every error, with the exact wire body it must produce. */
interface Case {
  readonly code: E.ErrorCode
  readonly errorClass: abstract new (...args: ReadonlyArray<any>) => E.PmfxError
  readonly wire: Schema.Schema<any, any, never>
  readonly error: E.PmfxError
  readonly message: string
  readonly details: Record<string, unknown>
  /** docs/api.md. */
  readonly status: number
  /** docs/architecture.md §10. */
  readonly exitCode: number
}

const makeCase = <Err extends E.PmfxError>(
  code: Err["_tag"],
  errorClass: new (props: { message: string; details: Err["details"] }) => Err,
  wire: Schema.Schema<Err, any, never>,
  message: string,
  details: Err["details"],
  status: number,
  exitCode: number
): Case => ({
  code,
  errorClass,
  wire,
  error: new errorClass({ message, details }),
  message,
  details: details as Record<string, unknown>,
  status,
  exitCode
})

const cases: ReadonlyArray<Case> = [
  makeCase(
    "PROCESS_NOT_FOUND",
    E.ProcessNotFound,
    W.ProcessNotFoundWire,
    "No process matches 'web'",
    { process_id: "web", suggestion: "Run `pmfx list` to see the processes" },
    404,
    4
  ),
  makeCase(
    "PROCESS_ALREADY_RUNNING",
    E.ProcessAlreadyRunning,
    W.ProcessAlreadyRunningWire,
    "Process 'api' is already running",
    { process_id: "api", pid: 4242, suggestion: "Use `pmfx restart api` to restart it" },
    409,
    5
  ),
  makeCase(
    "PROCESS_ALREADY_EXISTS",
    E.ProcessAlreadyExists,
    W.ProcessAlreadyExistsWire,
    "A process named 'api' already exists",
    { process_id: "api", suggestion: "Choose another name or delete the existing process" },
    409,
    5
  ),
  makeCase(
    "PROCESS_START_FAILED",
    E.ProcessStartFailed,
    W.ProcessStartFailedWire,
    "Process 'worker' failed to start",
    { process_id: "worker", reason: "spawn ./worker.sh EACCES", suggestion: "Make the script executable" },
    422,
    6
  ),
  makeCase(
    "INVALID_CONFIG",
    E.InvalidConfig,
    W.InvalidConfigWire,
    "apps[2].max_memory_restart: expected a size like 100K, 512M or 1G",
    {
      field: "apps[2].max_memory_restart",
      value: "12X",
      suggestion: "Write a size like 512M",
      file: "/srv/app/ecosystem.config.js",
      problems: [
        {
          field: "apps[2].max_memory_restart",
          value: "12X",
          message: "expected a size like 100K, 512M or 1G",
          suggestion: "Write a size like 512M"
        }
      ]
    },
    422,
    3
  ),
  makeCase(
    "CONFIG_PARSE_ERROR",
    E.ConfigParseError,
    W.ConfigParseErrorWire,
    "Unexpected token } in /srv/app/pmfx.json at line 12",
    { file: "/srv/app/pmfx.json", line: 12, column: 5, suggestion: "Remove the trailing comma" },
    400,
    3
  ),
  makeCase(
    "PORT_IN_USE",
    E.PortInUse,
    W.PortInUseWire,
    "Port 3000 is already in use",
    { port: 3000, suggestion: "Pick another port or use auto:3000-3100" },
    409,
    5
  ),
  makeCase(
    "INSUFFICIENT_RESOURCES",
    E.InsufficientResources,
    W.InsufficientResourcesWire,
    "4 instances need 4 ports but 3000-3001 has 2",
    { resource: "ports", available: 2, required: 4, suggestion: "Widen the range to 3000-3003" },
    422,
    6
  ),
  makeCase(
    "BAD_REQUEST",
    E.BadRequest,
    W.BadRequestWire,
    "The request body is not valid JSON",
    { field: "body", reason: "Unexpected end of JSON input", suggestion: "Send a JSON object" },
    400,
    2
  ),
  makeCase(
    "READY_TIMEOUT",
    E.ReadyTimeout,
    W.ReadyTimeoutWire,
    "'api' was not ready after 60s",
    { process_id: "api", waited_ms: 60_000, states: { "3": "online", "4": "starting" } },
    504,
    6
  ),
  makeCase(
    "SERVICE_UNAVAILABLE",
    E.ServiceUnavailable,
    W.ServiceUnavailableWire,
    "The daemon is shutting down",
    { reason: "shutting down" },
    503,
    7
  ),
  makeCase(
    "FILE_ERROR",
    E.FileError,
    W.FileErrorWire,
    "PMFX_HOME /mnt/ro/pmfx cannot be created: read-only file system",
    { path: "/mnt/ro/pmfx", reason: "EROFS", suggestion: "set PMFX_HOME to a writable folder" },
    422,
    3
  ),
  makeCase(
    "INTERNAL_ERROR",
    E.InternalError,
    W.InternalErrorWire,
    "Internal error",
    { request_id: "req-7f3a9c" },
    500,
    1
  )
]

const json = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const expectedBody = (c: Case) => ({ success: false, error: { code: c.code, message: c.message, details: c.details } })

describe("error codes", () => {
  it("covers all thirteen codes, each once", () => {
    const codes = cases.map((c) => c.code)
    expect(new Set(codes).size).toBe(13)
    expect([...codes].sort()).toStrictEqual(Object.keys(E.errorMeta).sort())
    expect([...codes].sort()).toStrictEqual(Object.keys(W.errorWires).sort())
  })

  it("each class's _tag is its code", () => {
    for (const c of cases) {
      expect(c.error._tag).toBe(c.code)
      expect(c.error).toBeInstanceOf(c.errorClass)
      expect(c.error.message).toBe(c.message)
    }
  })

  it("isPmfxError recognises every error and nothing else", () => {
    for (const c of cases) expect(E.isPmfxError(c.error)).toBe(true)
    expect(E.isPmfxError(new Error("boom"))).toBe(false)
    expect(E.isPmfxError({ _tag: "NOT_A_CODE" })).toBe(false)
    expect(E.isPmfxError(null)).toBe(false)
    expect(E.isPmfxError("PROCESS_NOT_FOUND")).toBe(false)
  })
})

describe.each(cases)("$code", (c) => {
  it("encodes to the exact wire body", () => {
    expect(json(Schema.encodeSync(c.wire)(c.error))).toStrictEqual(expectedBody(c))
  })

  it("decodes the wire body back to the class", () => {
    const decoded = Schema.decodeUnknownSync(c.wire)(json(expectedBody(c)))
    expect(decoded).toBeInstanceOf(c.errorClass)
    expect(decoded._tag).toBe(c.code)
    expect(decoded.message).toBe(c.message)
    expect(json(decoded.details)).toStrictEqual(c.details)
  })

  it("toWire gives the same body", () => {
    expect(json(W.toWire(c.error))).toStrictEqual(expectedBody(c))
  })

  it("AnyErrorWire decodes the body to the right class", () => {
    const decoded = Schema.decodeUnknownSync(W.AnyErrorWire)(json(expectedBody(c)))
    expect(decoded).toBeInstanceOf(c.errorClass)
    expect(decoded._tag).toBe(c.code)
    expect(decoded.message).toBe(c.message)
    expect(json(decoded.details)).toStrictEqual(c.details)
  })

  it("carries the HTTP status of docs/api.md", () => {
    expect(E.errorMeta[c.code].status).toBe(c.status)
    expect(HttpApiSchema.getStatusErrorAST(c.wire.ast)).toBe(c.status)
    // Read the annotation itself too: getStatusErrorAST falls back to 500 when none is set.
    expect(c.wire.ast.annotations[HttpApiSchema.AnnotationStatus]).toBe(c.status)
    expect(W.errorWires[c.code]).toBe(c.wire)
  })

  it("carries the CLI exit code of docs/architecture.md §10", () => {
    expect(E.errorMeta[c.code].exitCode).toBe(c.exitCode)
  })

  it("rejects a wire body carrying another code", () => {
    const other = c.code === "INTERNAL_ERROR" ? "PROCESS_NOT_FOUND" : "INTERNAL_ERROR"
    const body = { success: false, error: { code: other, message: c.message, details: c.details } }
    expect(Either.isLeft(Schema.decodeUnknownEither(c.wire)(json(body)))).toBe(true)
  })

  it("rejects a wire body with success: true", () => {
    const body = { success: true, error: { code: c.code, message: c.message, details: c.details } }
    expect(Either.isLeft(Schema.decodeUnknownEither(c.wire)(json(body)))).toBe(true)
  })

  it("rejects a wire body without details", () => {
    const body = { success: false, error: { code: c.code, message: c.message } }
    expect(Either.isLeft(Schema.decodeUnknownEither(c.wire)(body))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(W.AnyErrorWire)(body))).toBe(true)
  })
})

describe("wire details validation", () => {
  it("rejects details of the wrong shape", () => {
    const badPid = {
      success: false,
      error: {
        code: "PROCESS_ALREADY_RUNNING",
        message: "m",
        details: { process_id: "api", pid: "4242", suggestion: "s" }
      }
    }
    expect(Either.isLeft(Schema.decodeUnknownEither(W.ProcessAlreadyRunningWire)(badPid))).toBe(true)
    const fractionalPort = {
      success: false,
      error: { code: "PORT_IN_USE", message: "m", details: { port: 3000.5, suggestion: "s" } }
    }
    expect(Either.isLeft(Schema.decodeUnknownEither(W.PortInUseWire)(fractionalPort))).toBe(true)
  })

  it("AnyErrorWire rejects an unknown code", () => {
    const body = { success: false, error: { code: "TEAPOT", message: "short and stout", details: {} } }
    expect(Either.isLeft(Schema.decodeUnknownEither(W.AnyErrorWire)(body))).toBe(true)
  })

  it("optional details are left out of the wire body when absent", () => {
    const error = new E.ConfigParseError({
      message: "bad YAML",
      details: { file: "/a/pmfx.yaml", line: 3, suggestion: "Fix the indentation" }
    })
    expect(json(W.toWire(error))).toStrictEqual({
      success: false,
      error: {
        code: "CONFIG_PARSE_ERROR",
        message: "bad YAML",
        details: { file: "/a/pmfx.yaml", line: 3, suggestion: "Fix the indentation" }
      }
    })
  })
})

describe("InvalidConfig.fromProblems", () => {
  const first: E.ConfigProblem = {
    field: "apps[0].max_memory_restart",
    value: "12X",
    message: "expected a size like 100K, 512M or 1G",
    suggestion: "Write a size like 512M"
  }
  const second: E.ConfigProblem = {
    field: "apps[1].scirpt",
    value: "server.js",
    message: "unknown setting",
    suggestion: "Did you mean script?"
  }
  const third: E.ConfigProblem = {
    field: "apps[2].instances",
    value: -5,
    message: "expected an integer >= -1",
    suggestion: ""
  }

  it("builds an error from one problem", () => {
    const error = E.InvalidConfig.fromProblems([first])
    expect(error).toBeInstanceOf(E.InvalidConfig)
    expect(error._tag).toBe("INVALID_CONFIG")
    expect(error.message).toBe("apps[0].max_memory_restart: expected a size like 100K, 512M or 1G")
    expect(error.details).toStrictEqual({
      field: "apps[0].max_memory_restart",
      value: "12X",
      suggestion: "Write a size like 512M",
      problems: [first]
    })
  })

  it("builds an error from three problems, headed by the first", () => {
    const error = E.InvalidConfig.fromProblems([first, second, third], "/srv/app/ecosystem.config.js")
    expect(error.message).toBe(
      "3 problems in /srv/app/ecosystem.config.js; first apps[0].max_memory_restart: expected a size like 100K, 512M or 1G"
    )
    expect(error.details.field).toBe(first.field)
    expect(error.details.value).toBe(first.value)
    expect(error.details.suggestion).toBe(first.suggestion)
    expect(error.details.file).toBe("/srv/app/ecosystem.config.js")
    expect(error.details.problems).toStrictEqual([first, second, third])
  })

  it("leaves the file out of the message and details when not given", () => {
    const error = E.InvalidConfig.fromProblems([first, second, third])
    expect(error.message).toBe("3 problems; first apps[0].max_memory_restart: expected a size like 100K, 512M or 1G")
    expect("file" in error.details).toBe(false)
  })

  it("copies the problems array", () => {
    const problems = [first, second]
    const error = E.InvalidConfig.fromProblems(problems)
    problems.push(third)
    expect(error.details.problems).toStrictEqual([first, second])
  })

  it("survives the wire round trip with every problem", () => {
    const error = E.InvalidConfig.fromProblems([first, second, third], "/srv/app/pmfx.yaml")
    const body = json(Schema.encodeSync(W.InvalidConfigWire)(error))
    expect(body).toStrictEqual({
      success: false,
      error: {
        code: "INVALID_CONFIG",
        message: error.message,
        details: {
          field: first.field,
          value: first.value,
          suggestion: first.suggestion,
          file: "/srv/app/pmfx.yaml",
          problems: [first, second, third]
        }
      }
    })
    const decoded = Schema.decodeUnknownSync(W.InvalidConfigWire)(body)
    expect(decoded).toBeInstanceOf(E.InvalidConfig)
    expect(decoded.details.problems).toStrictEqual([first, second, third])
  })
})

describe("catching errors by code", () => {
  it.effect("Effect.catchTag catches PROCESS_NOT_FOUND", () =>
    Effect.gen(function* () {
      const result = yield* Effect.fail(
        new E.ProcessNotFound({
          message: "No process matches 'web'",
          details: { process_id: "web", suggestion: "Run pmfx list" }
        })
      ).pipe(Effect.catchTag("PROCESS_NOT_FOUND", (e) => Effect.succeed(`caught ${e.details.process_id}`)))
      expect(result).toBe("caught web")
    })
  )

  it.effect("Effect.catchTag leaves other codes alone", () =>
    Effect.gen(function* () {
      const failing: Effect.Effect<string, E.ProcessNotFound | E.PortInUse> = Effect.fail(
        new E.PortInUse({ message: "Port 3000 is already in use", details: { port: 3000, suggestion: "Pick another" } })
      )
      const result = yield* failing.pipe(
        Effect.catchTag("PROCESS_NOT_FOUND", () => Effect.succeed("wrong handler")),
        Effect.flip
      )
      expect(result).toBeInstanceOf(E.PortInUse)
      expect(result._tag).toBe("PORT_IN_USE")
    })
  )

  it.effect("a decoded wire error can be caught by its tag", () =>
    Effect.gen(function* () {
      const decoded = Schema.decodeUnknownSync(W.AnyErrorWire)({
        success: false,
        error: {
          code: "READY_TIMEOUT",
          message: "not ready",
          details: { process_id: "api", waited_ms: 100, states: { "1": "starting" } }
        }
      })
      const result = yield* Effect.fail(decoded).pipe(
        Effect.catchTag("READY_TIMEOUT", (e) => Effect.succeed(e.details.waited_ms)),
        Effect.catchAll(() => Effect.succeed(-1))
      )
      expect(result).toBe(100)
    })
  )
})
