/**
 * `dist/pmfx.cjs`: starts the CLI bundle (`dist/pmfx-main.cjs`) from V8's code cache when one was
 * made for this Node at install time. Compiling the ~1 MB bundle is a third of a command's start
 * (NOTES.md); with the cache, V8 skips it. A cache made by another Node version is rejected by V8
 * and the bundle compiles as usual — never wrong, only slower.
 *
 * The plain local `list --json` is answered here without the bundle at all (`fastList`).
 */
import * as fs from "node:fs"
import Module from "node:module"
import * as path from "node:path"
import * as vm from "node:vm"
import { fastList, isFastList } from "./cli/fastList"

const runCli = (): void => {
  const main = path.join(__dirname, "pmfx-main.cjs")
  const cacheFile = `${main}.cache`
  const source = fs.readFileSync(main, "utf8").replace(/^#!.*\n/, "")
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
  compiled.call(module.exports, module.exports, Module.createRequire(main), module, main, path.dirname(main))
}

if (isFastList(process.argv.slice(2), process.env)) {
  void fastList(process.env).then((answered) => {
    if (!answered) runCli()
  })
} else {
  runCli()
}
