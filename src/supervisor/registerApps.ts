/**
 * Adds apps to the process table, all or nothing (docs/architecture.md §4): names, dependencies
 * and ports are checked first; then each instance gets a row with a new id (none is reused).
 */
import { Effect } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { InvalidConfig, ProcessAlreadyExists } from "../domain/errors"
import { dependencyProblem } from "./dependencyConditions"
import { assignPorts } from "./PortAllocator"
import type { ProcessTable } from "./processTable"
import { hasHealthCheck, initialRowState, type Row } from "./Row"

export const registerApps = (
  table: ProcessTable,
  definitions: ReadonlyArray<AppDefinition>,
  baseEnv: Readonly<Record<string, string>>
) =>
  table.tableLock.withPermits(1)(
    Effect.gen(function* () {
      const batch = new Set<string>()
      for (const app of definitions) {
        if (table.rowsOfApp(app.name).length > 0 || batch.has(app.name)) {
          return yield* new ProcessAlreadyExists({
            message: `an app named ${app.name} already exists`,
            details: { process_id: app.name, suggestion: `use \`pmfx restart ${app.name}\`, or delete it first` }
          })
        }
        batch.add(app.name)
      }
      for (const app of definitions) {
        for (const [i, dependency] of app.depends_on.entries()) {
          const target = batch.has(dependency.name)
            ? definitions.find((d) => d.name === dependency.name)
            : table.rowsOfApp(dependency.name)[0]?.app.definition
          const problem = dependencyProblem(dependency, target)
          if (problem !== undefined) {
            return yield* InvalidConfig.fromProblems([
              { field: `${app.name}.depends_on[${i}]`, value: dependency.name, ...problem }
            ])
          }
        }
      }
      // Read only when an app asks for a port: it visits every row, and a file's apps are created one
      // request each (`POST /api/apply`), which made it O(n²) over a burst of apps without ports.
      const held = definitions.some((app) => app.port !== null) ? yield* table.heldPorts() : new Set<number>()
      const portsByApp = new Map<string, ReadonlyArray<number>>()
      for (const app of definitions) {
        if (app.port === null) continue
        // Cluster workers share the app's one port (its primary listens on it).
        const cluster = app.exec_mode === "cluster"
        const ports = yield* assignPorts(app.port, cluster ? 1 : app.instances, held, app.name)
        ports.forEach((port) => held.add(port))
        portsByApp.set(app.name, cluster ? Array.from({ length: app.instances }, () => ports[0]!) : ports)
      }
      const created: Array<Row> = []
      for (const app of definitions) {
        const record = table.appRecord(app, baseEnv)
        for (let instance = 0; instance < app.instances; instance++) {
          const port = portsByApp.get(app.name)?.[instance] ?? null
          const row = yield* table.makeRow(table.takeId(), instance, record, initialRowState(port, hasHealthCheck(app)))
          table.rows.set(row.id, row)
          created.push(row)
        }
      }
      return created
    })
  )
