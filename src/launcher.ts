/**
 * `dist/pmfx.cjs`: starts the CLI bundle (`dist/pmfx-main.cjs`), or for `pmfx daemon` the daemon
 * bundle (`dist/daemon.cjs`), from V8's code cache when the build made one for this Node.
 * Compiling a ~1 MB bundle is a third of a command's start (measured, docs/architecture.md §12) and leaves the daemon holding
 * ~12 MB of parser memory; with the cache V8 skips both. A cache made by another Node version or
 * under other V8 flags is rejected by V8 and the bundle compiles as usual — never wrong, only
 * slower and bigger.
 *
 * The plain local `list --json` and `list` table are answered here without the bundle at all
 * (`fastList`), as are the plain `stop <target>` and `delete <target>` (`fastAction`).
 */
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import Module from "node:module"
import * as path from "node:path"
import * as tty from "node:tty"
import * as vm from "node:vm"
import { debugIn } from "./cli/debugIn"
import { isCompletionNames, printCompletionNames } from "./cli/completionNames"
import { fastAct, fastActionOf } from "./cli/fastAction"
import { fastList, fastListing } from "./cli/fastList"

/** The exports of a bundle next to this launcher, compiled from its code cache when V8 takes it. */
const loadBundle = (name: string): unknown => {
  const main = path.join(__dirname, name)
  const cacheFile = `${main}.cache`
  const bytes = fs.readFileSync(main)
  // esbuild writes ASCII (its default charset): such bytes are taken as one-byte text as they are,
  // several times faster than decoding 1.4 MB as UTF-8 (~5-10 ms of a command's start).
  const source = (isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")).replace(/^#!.*\n/, "")
  let cachedData: Buffer | undefined
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {
    cachedData = undefined
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: main,
    ...(cachedData === undefined ? {} : { cachedData }),
    // `import()` inside the bundle (ES module ecosystem files) uses Node's own loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  if (process.env.PMFX_WRITE_CODE_CACHE === "1") {
    // Written at exit so that the functions the run compiled are in the cache too.
    process.once("exit", () => fs.writeFileSync(cacheFile, script.createCachedData()))
  }
  const compiled = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string
  ) => void
  const module = { exports: {}, id: main, filename: main, loaded: false }
  withoutStackTraces(() =>
    compiled.call(module.exports, module.exports, Module.createRequire(main), module, main, path.dirname(main))
  )
  return module.exports
}

/**
 * Runs `evaluate` (a bundle's module code) with stack traces off. Effect records where each
 * service tag is defined: a `new Error()` with a two-frame trace, kept unformatted, whose frames
 * hold on to the bundle's top-level function — ~160 KB of bytecode a daemon never runs again —
 * and a few hundred call-site records (docs/benchmarks.md, "The daemon's memory, fifth pass").
 * `Error.stackTraceLimit` ignores assignments while the modules are evaluated, and is restored
 * after: errors at run time have their traces as usual.
 */
const withoutStackTraces = (evaluate: () => void): void => {
  const limit = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit")
  // An accessor, not a read-only value: assigning it stays legal (some code does so in strict
  // mode), and V8 captures no frames when the limit is not a plain number.
  Object.defineProperty(Error, "stackTraceLimit", { get: () => 0, set: () => {}, configurable: true })
  try {
    evaluate()
  } finally {
    if (limit === undefined) Reflect.deleteProperty(Error, "stackTraceLimit")
    else Object.defineProperty(Error, "stackTraceLimit", limit)
  }
}

/**
 * A reader that went away (`pmfx ls | head -1`, `… 2>&1 | head -1`) ends a fast path quietly, with
 * the exit code it has, as the CLI's console output does; any other stream error is thrown.
 */
const onClosedPipe = (cause: NodeJS.ErrnoException): void => {
  if (cause.code !== "EPIPE") throw cause
  process.exit(process.exitCode)
}
const quietOnClosedPipe = (listen: boolean): void => {
  for (const stream of [process.stdout, process.stderr])
    if (listen) stream.on("error", onClosedPipe)
    else stream.removeListener("error", onClosedPipe)
}

/**
 * After a fast path (`fastList`, `fastAction`): the CLI runs when the launcher could not answer.
 * PMFX_DEBUG=1 tells the two ways apart: their output is the same.
 */
const answeredOrCli = (answered: boolean): void => {
  if (debugIn(process.env))
    process.stderr.write(
      answered
        ? "pmfx: the launcher answered from the daemon's socket\n"
        : "pmfx: the launcher could not answer from the daemon's socket: the CLI does\n"
    )
  if (answered) return
  quietOnClosedPipe(false)
  loadBundle("pmfx-main.cjs")
}

const args = process.argv.slice(2)
const listing = fastListing(args, process.env)
const action = listing === null ? fastActionOf(args, process.env, tty.isatty(0)) : null

if (args[0] === "daemon" && args[1] !== "restart" && !args.includes("--help") && !args.includes("-h")) {
  // The daemon (foreground, or started in the background by the CLI) without the CLI bundle:
  // loading both would cost the long-running process the memory of code it never runs.
  const daemon = loadBundle("daemon.cjs") as { readonly main: (args: ReadonlyArray<string>) => void }
  daemon.main(args.slice(1))
} else if (isCompletionNames(args)) {
  // The shell completion scripts' call for app names: answered here, never starting a daemon.
  void printCompletionNames(process.env)
} else if (listing !== null) {
  quietOnClosedPipe(true)
  void fastList(listing, process.env).then(answeredOrCli)
} else if (action !== null) {
  quietOnClosedPipe(true)
  void fastAct(action, process.env).then(answeredOrCli)
} else {
  loadBundle("pmfx-main.cjs")
}
