import { describe, expect, it } from "@effect/vitest"
import { commandAppName } from "../../src/cli/commandAppName"

describe("commandAppName", () => {
  it.each([
    ["node", ["server.js", "--port", "3"], "server"],
    ["/usr/bin/python3", ["app/main.py"], "main"],
    ["node", ["--inspect", "server.js"], "server"],
    ["node", ["-r", "dotenv/config", "server.js"], "server"],
    ["node", ["-e", "setInterval(() => {}, 1000)"], "node"],
    ["python3", ["-c", "print(1)"], "python3"],
    ["python3", ["-m", "http.server", "8000"], "http.server"],
    ["bash", ["-c", "while true; do sleep 1; done"], "bash"],
    ["sleep", ["100"], "sleep"],
    ["/opt/bin/worker", ["--queue", "mail"], "worker"],
    ["node", [], "node"],
    ["node", ["(weird) name.js"], "(weird) name"],
    ["node", ["bad\u0007name.js"], "node"],
    ["node", ["123.js"], "node"]
  ] as const)("%s %j → %s", (program, args, name) => {
    expect(commandAppName(program, args)).toBe(name)
  })
})
