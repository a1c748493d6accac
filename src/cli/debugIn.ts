/** Whether `PMFX_DEBUG` asks for debug output (set, and neither empty nor `0`). No imports: the launcher asks too. */
export const debugIn = (env: NodeJS.ProcessEnv): boolean =>
  env["PMFX_DEBUG"] !== undefined && env["PMFX_DEBUG"] !== "" && env["PMFX_DEBUG"] !== "0"
