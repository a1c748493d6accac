/**
 * pmfx as a library: the domain schemas, the structured errors and the configuration loader, to
 * embed in other Effect programs. (The process engine joins these exports in the next milestone.)
 */
export * from "./domain/AppDefinition"
export * from "./domain/Duration"
export * from "./domain/errors"
export * from "./domain/ErrorWire"
export * from "./domain/logPaths"
export * from "./domain/Port"
export * from "./domain/ProcessDetail"
export * from "./domain/ProcessStatus"
export * from "./domain/ProcessSummary"
export * from "./domain/shellWords"
export * from "./domain/Size"
export { ConfigLoader } from "./config/ConfigLoader"
export type { LoadedEcosystem, LoadOptions } from "./config/ConfigLoader"
export { Paths, resolveHome } from "./daemon/Paths"
