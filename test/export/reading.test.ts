/**
 * `pmfx export` reads the file as `pmfx start` does (docs/export.md): JSON5 syntax, `${VAR}` from
 * the caller's environment, the `--env` block over `env`, `env_file` under `env`, and `extends`.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { parseAllDocuments } from "yaml"
import { makeSandbox, type Sandbox } from "../support/cli"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("pmfx export reads the file as pmfx start does", () => {
  it("JSON5, ${VAR}, --env blocks, env_file and extends all reach the ConfigMap", () => {
    sandbox.write("project/server.js", "setInterval(() => {}, 1000)\n")
    sandbox.write("project/app.env", "FROM_FILE=yes\nMODE=from-file\n")
    sandbox.write("project/base.json", JSON.stringify({ max_memory_restart: "64M" }))
    const file = sandbox.write(
      "project/ecosystem.json",
      `// JSON5: comments, unquoted keys, trailing commas
      { apps: [ { name: "api", extends: "./base.json", script: "./server.js", port: 8080, env_file: "./app.env",
          env: { MODE: "dev", REGION: "\${REGION}", },
          env_production: { MODE: "prod", }, }, ], }`
    )
    const result = sandbox.pmfx(["export", "kubernetes", file, "--env", "production"], { REGION: "eu-west" })
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" })
    const objects = parseAllDocuments(result.stdout).map(
      (doc) => doc.toJS() as { kind: string; data?: Record<string, string>; spec?: any }
    )
    expect(objects.find((o) => o.kind === "ConfigMap")!.data).toEqual({
      FROM_FILE: "yes",
      MODE: "prod",
      REGION: "eu-west",
      PORT: "8080"
    })
    const deployment = objects.find((o) => o.kind === "Deployment")!
    expect(deployment.spec.template.spec.containers[0].resources.limits.memory).toBe("64Mi")
  })
})

describe("pmfx export in the shell completions", () => {
  for (const shell of ["bash", "zsh", "fish"]) {
    it(`${shell} completes the targets, then files`, () => {
      const result = sandbox.pmfx(["completion", shell])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("kubernetes compose systemd")
      expect(result.stdout).toMatch(/export/)
    })
  }

  it("bash offers the targets first, then files", () => {
    const script = sandbox.write("pmfx.bash", sandbox.pmfx(["completion", "bash"]).stdout)
    const complete = (words: ReadonlyArray<string>) =>
      spawnSync(
        "bash",
        [
          "-c",
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _pmfx; echo "\${COMPREPLY[@]}"`
        ],
        { cwd: sandbox.dir, encoding: "utf8" }
      ).stdout.trim()
    expect(complete(["pmfx", "export", ""])).toBe("kubernetes compose systemd")
    expect(complete(["pmfx", "export", "com"])).toBe("compose")
    sandbox.write("ecosystem.json", "{}")
    expect(complete(["pmfx", "export", "compose", "ecos"])).toBe("ecosystem.json")
  })
})
