/**
 * Resolves once Ink's layout engine can be used. Loaded as ES modules (tests, benchmarks),
 * yoga-layout is ready when imported (it instantiates its WebAssembly with a top-level await).
 * The dashboard's CommonJS bundle cannot have a top-level await: there the build swaps this
 * module for the edited yoga-layout's own promise (docs/dependency-edits.md, yoga-without-top-level-await).
 */
export const yogaReady: Promise<void> = Promise.resolve();
