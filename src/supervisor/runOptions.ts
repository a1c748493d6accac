/**
 * How `restart`/`reload` run an app's rows (docs/cli.md, `--port`, `--update-env`): a one-time
 * port for this run, a new starting environment, or each row's own port under a new definition.
 */
import { Effect, Either } from "effect"
import { InvalidConfig } from "../domain/errors"
import { parsePort } from "../domain/Port"
import { assignPorts } from "./PortAllocator"
import type { ProcessTable } from "./processTable"
import type { Row, RowState } from "./Row"

export interface RuntimePortOption {
  /** A port or range for this run only (`restart`/`reload --port`); the definition keeps its own. */
  readonly port?: string | undefined
}

/** How `restart`/`reload` run a row: a one-time port, and (`--update-env`) a new starting environment. */
export interface RunOptions extends RuntimePortOption {
  /** Replaces the app's starting environment (the caller's, PM2's `--update-env`); kept without it. */
  readonly baseEnv?: Readonly<Record<string, string>> | undefined
  /** Each row's own port under a new definition (`redefine`), by position in the app's rows. */
  readonly basePorts?: ReadonlyArray<number | null>
}

/** Per-instance ports for a runtime override: a port or a range (instance i gets first+i), or auto:. */
export const overridePorts = (table: ProcessTable, setting: string, appRows: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    const parsed = parsePort(setting)
    if (Either.isLeft(parsed)) {
      return yield* InvalidConfig.fromProblems([
        {
          field: "port",
          value: setting,
          message: parsed.left,
          suggestion: "write a port (3000) or a range (3000-3003)"
        }
      ])
    }
    const held = yield* table.heldPorts(new Set(appRows.map((row) => row.id)))
    const cluster = appRows[0]?.app.definition.exec_mode === "cluster"
    const owner = appRows[0]?.app.definition.name ?? "app"
    const ports = yield* assignPorts(setting, cluster ? 1 : appRows.length, held, owner, { bindTest: false })
    return cluster ? appRows.map(() => ports[0]!) : ports
  })

/** `--update-env`: the app's rows start from the caller's environment from now on (the caller holds the lock). */
export const refreshEnvironment = (table: ProcessTable, appRows: ReadonlyArray<Row>, options: RunOptions) => {
  if (options.baseEnv === undefined || appRows.length === 0) return
  const record = table.appRecord(appRows[0]!.app.definition, options.baseEnv)
  for (const row of appRows) row.app = record
}

/** The row's own port under a new definition (`redefine`), when there is one. */
export const ownPort = (options: RunOptions, i: number): Partial<RowState> =>
  options.basePorts === undefined ? {} : { port: options.basePorts[i] ?? null }
