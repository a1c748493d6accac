/**
 * `pmfx export kubernetes|compose|systemd <file> [-o dir]` (docs/export.md): the apps of an
 * ecosystem file, read exactly as `pmfx start` reads it, as what another engine runs. Runs in the
 * CLI alone, no daemon. Without `-o` the files go to stdout as one stream; with `-o` they are
 * written into the folder all at once or not at all (src/export/writeExportFiles.ts).
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { closestKey } from "../../config/closestKey"
import { ProcessNotFound } from "../../domain/errors"
import { exportEcosystem } from "../../export/exportEcosystem"
import type { ExportOptions, ExportResult, ExportTarget } from "../../export/exportTarget"
import { exportTargets, isExportTarget } from "../../export/exportTarget"
import { portableId } from "../../export/portableApp"
import { writeExportFiles } from "../../export/writeExportFiles"
import { CallerEnvironment } from "../CallerEnvironment"
import { failWith, printJson } from "../output"
import { style } from "../style"
import { badUsage, optionValue } from "../usage"
import { onlyNames } from "./applyFile"
import { envOption, fileArg, jsonOption } from "./configOptions"
import { ConfigLoader } from "../../config/ConfigLoader"

/** The image of the init containers that wait for a dependency: `sh`, `nc` and `wget` are all it needs. */
export const DEFAULT_WAIT_IMAGE = "busybox:1.36"

const targetArg = Args.text({ name: exportTargets.join("|") }).pipe(
  Args.withDescription(`what to export to: ${exportTargets.join(", ")}`)
)

const options = {
  // Text, not Options.directory: its existence check fails with a system error, not FILE_ERROR.
  output: Options.text("output").pipe(
    Options.withAlias("o"),
    Options.withPseudoName("dir"),
    Options.withDescription("write the files into this folder (created if missing) instead of printing them"),
    Options.optional
  ),
  image: Options.text("image").pipe(
    Options.withPseudoName("image"),
    Options.withDescription(
      "kubernetes, compose: the container image that holds the apps (default: <folder of the file>:latest)"
    ),
    Options.optional
  ),
  root: Options.directory("root", { exists: "yes" }).pipe(
    Options.withPseudoName("dir"),
    Options.withDescription(
      "the project folder that --workdir stands for (default: the folder of the file); app paths must be under it for kubernetes and compose"
    ),
    Options.optional
  ),
  workdir: Options.text("workdir").pipe(
    Options.withPseudoName("path"),
    Options.withDescription(
      "where the file's folder is on the target: in the image (default /app), or on the host for systemd (default: the folder itself)"
    ),
    Options.mapEffect(
      optionValue(
        "--workdir",
        (text: string) =>
          path.posix.isAbsolute(text)
            ? Either.right(path.posix.normalize(text))
            : Either.left(`"${text}" is not an absolute path`),
        "write an absolute path, like --workdir /app"
      )
    ),
    Options.optional
  ),
  waitImage: Options.text("wait-image").pipe(
    Options.withPseudoName("image"),
    Options.withDescription(
      `kubernetes: the image of the init containers that wait for a dependency (default ${DEFAULT_WAIT_IMAGE})`
    ),
    Options.withDefault(DEFAULT_WAIT_IMAGE)
  ),
  cpus: Options.integer("cpus").pipe(
    Options.withPseudoName("n"),
    Options.withDescription("what `instances: max` means on the target (default: this machine's CPU count)"),
    Options.mapEffect(
      optionValue(
        "--cpus",
        (n: number) => (n >= 1 ? Either.right(n) : Either.left(`${n} is below 1`)),
        "write a whole number of CPUs, like --cpus 4"
      )
    ),
    Options.optional
  ),
  env: envOption,
  only: Options.text("only").pipe(
    Options.withPseudoName("a,b"),
    Options.withDescription(
      "export only these apps of the file (comma-separated names); their dependencies are still looked up"
    ),
    Options.mapEffect(
      optionValue(
        "--only",
        (text: string) =>
          /^[^,]+(,[^,]+)*$/.test(text.trim())
            ? Either.right(text.split(",").map((name) => name.trim()))
            : Either.left(`${JSON.stringify(text)} is not a list of names`),
        "write app names separated by commas, like --only api,worker"
      )
    ),
    Options.optional
  ),
  json: jsonOption
}

/** The default image: the project folder's name, as the image built from it would be tagged. */
export const defaultImage = (projectDir: string): string => `${portableId(path.basename(projectDir)) || "app"}:latest`

/** The stream printed without -o: each file under a comment naming it when there are several. */
const asStream = (result: ExportResult): string =>
  result.files.length === 1
    ? result.files[0]!.content
    : result.files.map((file) => `# ==> ${file.path} <==\n${file.content}`).join("\n")

export const exportCommand = Command.make("export", { target: targetArg, file: fileArg, ...options }, (o) =>
  Effect.gen(function* () {
    const { json } = o
    const target = o.target.trim().toLowerCase()
    if (!isExportTarget(target)) {
      // What people call the engines, which no edit distance finds: docker → compose, k8s → kubernetes.
      const alias: Record<string, string> = {
        docker: "compose",
        "docker-compose": "compose",
        podman: "compose",
        "podman-compose": "compose",
        k8s: "kubernetes",
        kube: "kubernetes",
        kubectl: "kubernetes",
        helm: "kubernetes",
        systemctl: "systemd",
        unit: "systemd"
      }
      const closest = alias[target] ?? closestKey(target, exportTargets)
      return yield* failWith(
        badUsage(
          "target",
          `${JSON.stringify(o.target)} is not a target; the targets are ${exportTargets.join(", ")}`,
          `write pmfx export ${closest ?? "kubernetes"} ${o.file}`
        ),
        json
      )
    }
    const caller = yield* CallerEnvironment
    const loader = yield* ConfigLoader
    const file = path.resolve(caller.cwd, o.file)
    const loaded = yield* loader
      .loadFile(file, {
        environment: caller.env,
        envName: Option.getOrUndefined(o.env),
        cpus: Option.getOrUndefined(o.cpus) ?? os.availableParallelism()
      })
      .pipe(Effect.catchAll((error) => failWith(error, json)))
    const only = onlyNames(o.only)
    const names = loaded.apps.map((app) => app.name)
    for (const wanted of only) {
      if (names.includes(wanted)) continue
      const closest = closestKey(wanted, names)
      const suggestion =
        closest !== undefined
          ? `did you mean "${closest}"?`
          : `the file defines ${names.map((n) => JSON.stringify(n)).join(", ")}`
      return yield* failWith(
        new ProcessNotFound({
          message: `${file} has no app named ${JSON.stringify(wanted)}`,
          details: { process_id: wanted, suggestion }
        }),
        json
      )
    }
    const projectDir = Option.match(o.root, {
      onNone: () => path.dirname(file),
      onSome: (dir) => path.resolve(caller.cwd, dir)
    })
    const outputDir = Option.match(o.output, {
      onNone: () => caller.cwd,
      onSome: (dir) => path.resolve(caller.cwd, dir)
    })
    const exportOptions: ExportOptions = {
      target: target satisfies ExportTarget,
      projectDir,
      workdir: Option.getOrElse(o.workdir, () => (target === "systemd" ? projectDir : "/app")),
      image: Option.getOrElse(o.image, () => defaultImage(projectDir)),
      waitImage: o.waitImage,
      outputDir,
      sourceName: path.basename(file)
    }
    const exported = exportEcosystem({ apps: loaded.apps, only, file }, exportOptions)
    if (Either.isLeft(exported)) return yield* failWith(exported.left, json)
    const result = exported.right
    const warnings = [...loaded.warnings, ...result.warnings]
    if (Option.isNone(o.output)) {
      if (json) return yield* printJson({ success: true, target, files: result.files, warnings })
      for (const warning of warnings) yield* Console.error(`${style.yellow(process.stderr)("warning")} ${warning}`)
      return yield* Effect.sync(() => process.stdout.write(asStream(result)))
    }
    const written = yield* writeExportFiles(outputDir, result.files).pipe(
      Effect.catchAll((error) => failWith(error, json))
    )
    if (json) return yield* printJson({ success: true, target, files: written, warnings })
    for (const warning of warnings) yield* Console.error(`${style.yellow(process.stderr)("warning")} ${warning}`)
    yield* Console.log(
      written
        .map(
          (at) =>
            `${style.green(process.stdout)("wrote")} ${path.relative(caller.cwd, at).startsWith("..") ? at : path.relative(caller.cwd, at)}`
        )
        .join("\n")
    )
  })
).pipe(
  Command.withDescription(
    "Write the apps of an ecosystem file as Kubernetes objects, a compose file or systemd units (docs/export.md); no daemon needed. Without -o the result goes to stdout"
  )
)
