/**
 * Turns the apps of a loaded ecosystem file into the files of one target (docs/export.md). Every
 * app is checked first: one that cannot be exported fails the whole export with INVALID_CONFIG,
 * naming the app and the field, before anything is rendered or written.
 */
import { Either } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import type { ConfigProblem } from "../domain/errors"
import { InvalidConfig } from "../domain/errors"
import { renderCompose } from "./compose"
import type { ExportOptions, ExportResult } from "./exportTarget"
import { renderKubernetes } from "./kubernetes"
import type { PortableApp } from "./portableApp"
import { portableApp } from "./portableApp"
import { renderSystemd } from "./systemd"

export interface ExportInput {
  /** Every app of the file (dependencies outside `only` are still looked up). */
  readonly apps: ReadonlyArray<AppDefinition>
  /** The apps to export (`--only`); empty for all. */
  readonly only: ReadonlyArray<string>
  readonly file: string
}

export const exportEcosystem = (
  input: ExportInput,
  options: ExportOptions
): Either.Either<ExportResult, InvalidConfig> => {
  const problems: Array<ConfigProblem> = []
  const byName = new Map<string, PortableApp>()
  const selected: Array<PortableApp> = []
  const ids = new Map<string, string>()
  input.apps.forEach((app, index) => {
    const wanted = input.only.length === 0 || input.only.includes(app.name)
    const result = portableApp(app, index, options)
    if (Either.isLeft(result)) {
      if (wanted) problems.push(...result.left)
      return
    }
    byName.set(app.name, result.right)
    if (!wanted) return
    const clash = ids.get(result.right.id)
    if (clash !== undefined) {
      problems.push({
        field: `apps[${index}].name`,
        value: app.name,
        message: `cannot export "${app.name}" to ${options.target}: it becomes "${result.right.id}", the same name as "${clash}" (names are lower case letters, digits and dashes there)`,
        suggestion: "rename one of the two apps, or export them separately with --only"
      })
      return
    }
    ids.set(result.right.id, app.name)
    selected.push(result.right)
  })
  if (problems.length > 0) return Either.left(InvalidConfig.fromProblems(problems, input.file))
  const render =
    options.target === "kubernetes" ? renderKubernetes : options.target === "compose" ? renderCompose : renderSystemd
  return Either.right(render(selected, byName, options))
}
