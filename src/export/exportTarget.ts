/**
 * What `pmfx export` writes (docs/export.md): the targets, the options every target reads, and the
 * shape of a result — files to write and the warnings about settings that have no counterpart.
 */
export const exportTargets = ["kubernetes", "compose", "systemd"] as const
export type ExportTarget = (typeof exportTargets)[number]

export const isExportTarget = (text: string): text is ExportTarget =>
  (exportTargets as ReadonlyArray<string>).includes(text)

export interface ExportOptions {
  readonly target: ExportTarget
  /** Absolute folder of the ecosystem file: paths under it are the project's. */
  readonly projectDir: string
  /** Where the project folder is on the target (`--workdir`): `/app` in a container, the folder itself for systemd. */
  readonly workdir: string
  /** The image every app runs in (kubernetes, compose). */
  readonly image: string
  /** The small image of the init containers that wait for a dependency (kubernetes). */
  readonly waitImage: string
  /** Absolute folder the files are written to (or the current folder for stdout): compose's relative paths start there. */
  readonly outputDir: string
  /** The ecosystem file's name, for the header comments. */
  readonly sourceName: string
}

/** One file of the result, its path relative to the output folder. */
export interface ExportFile {
  readonly path: string
  readonly content: string
}

export interface ExportResult {
  readonly files: ReadonlyArray<ExportFile>
  /** Settings of the file that the target cannot honour (each is also a comment or annotation in the files). */
  readonly warnings: ReadonlyArray<string>
}
