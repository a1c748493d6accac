/**
 * Real PM2 ecosystem files from public repositories (test/fixtures/pm2-real/, sources and
 * licences in SOURCES.md), each loaded unchanged through the loader `pmfx validate`, `show` and
 * `start` use. Each file is copied alone into a fresh folder; nothing is stubbed: none of these
 * files requires a module or names an env_file, and the loader does not need the scripts to
 * exist. Warnings are allowed (PM2-only keys, unknown keys), errors are not — except the files in
 * `expectedProblems`, which wait for work not done yet and are checked to fail exactly so, so
 * that this test fails (and the table is updated) once they load.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { load, withTempDir } from "./helpers"

const fixtures = fileURLToPath(new URL("../fixtures/pm2-real", import.meta.url))
const files = fs
  .readdirSync(fixtures)
  .filter((name) => name !== "SOURCES.md")
  .sort()

/** Files that do not load yet: the field of the first problem and a piece of its message. */
const expectedProblems: Readonly<Record<string, { readonly field: string; readonly message: string }>> = {}

describe("real PM2 ecosystem files", () => {
  it("the sample holds at least 35 files from at least 30 repositories", () => {
    const repos = new Set(files.map((name) => name.split("__").slice(0, 2).join("/")))
    expect(files.length).toBeGreaterThanOrEqual(35)
    expect(repos.size).toBeGreaterThanOrEqual(30)
  })

  it.effect("every file loads with no error (warnings allowed), but those of the expected-problem table", () =>
    Effect.gen(function* () {
      const outcomes: Record<string, string> = {}
      for (const name of files) {
        const result = yield* withTempDir((dir) => {
          const file = path.join(dir, name)
          fs.copyFileSync(path.join(fixtures, name), file)
          return Effect.either(load(file, { environment: {} }))
        })
        if (result._tag === "Right") {
          expect(result.right.apps.length, name).toBeGreaterThan(0)
          outcomes[name] = "loads"
        } else {
          const details = result.left.details as { field?: string }
          outcomes[name] = `${details.field ?? "(parse)"}: ${result.left.message}`
        }
      }
      const failing = Object.entries(outcomes).filter(([, outcome]) => outcome !== "loads")
      expect(Object.fromEntries(failing.map(([name, outcome]) => [name, outcome.split(":")[0]]))).toEqual(
        Object.fromEntries(Object.entries(expectedProblems).map(([name, problem]) => [name, problem.field]))
      )
      for (const [name, outcome] of failing) expect(outcome, name).toContain(expectedProblems[name]!.message)
      console.log(`pm2-real: ${files.length - failing.length} of ${files.length} files load`)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
