// A background worker: one line every few seconds, a clean exit on SIGTERM.
let job = 0
const timer = setInterval(() => console.log(`job ${++job} done`), 5000)
process.on("SIGTERM", () => {
  clearInterval(timer)
  console.log("worker stopping")
  process.exit(0)
})
