/**
 * Fault suite, escapes (issue 11, defect 8; figures in docs/reliability.md): the three ways a
 * descendant leaves an app's process group, started through the real CLI and daemon, then
 * `pmfx stop all` and `pmfx delete all`, several rounds each. Every escapee must be gone when the
 * command returns; anything that escapes anyway is counted, reported and killed.
 */
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { escapees, escapeShapes, killEscapees } from "../support/escapes"

const ROUNDS = 5
const shapes = escapeShapes(process.pid + 17)
let sandbox: Sandbox | undefined
afterEach(() => {
  killEscapees(shapes)
  sandbox?.cleanup()
  sandbox = undefined
})

const ecosystem = (box: Sandbox) =>
  box.write("escapes.json", JSON.stringify({ apps: shapes.map((shape) => ({ ...shape.app, kill_timeout: "2s" })) }))

describe("escaped descendants", () => {
  for (const verb of ["stop", "delete"] as const) {
    it(`pmfx ${verb} all ends all three escape shapes, ${ROUNDS} rounds`, async () => {
      sandbox = makeSandbox()
      const box = sandbox
      const file = ecosystem(box)
      let survivors = 0
      for (let round = 0; round < ROUNDS; round++) {
        const start = round === 0 || verb === "delete" ? box.pmfx(["start", file]) : box.pmfx(["restart", "all"])
        expect(start.code, start.stderr).toBe(0)
        for (const shape of shapes) await waitFor(() => escapees(shape.marker).length === 1, `${shape.name} running`)
        const result = box.pmfx([verb, "all", "--force"].filter((arg) => verb === "delete" || arg !== "--force"))
        expect(result.code, result.stderr).toBe(0)
        const left = shapes.map((shape) => escapees(shape.marker).length)
        survivors += left.reduce((a, b) => a + b, 0)
        killEscapees(shapes)
      }
      console.log(`[escapes] ${verb} all: ${survivors} of ${ROUNDS * shapes.length} escapees survived`)
      expect(survivors).toBe(0)
    })
  }
})
