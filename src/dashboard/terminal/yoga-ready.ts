/**
 * Resolves once Ink's layout engine can be used. Loaded as ES modules (tests, benchmarks),
 * yoga-layout is ready when imported (it instantiates its WebAssembly with a top-level await).
 * The dashboard's CommonJS bundle (Node 20's code cache) cannot have a top-level await: there
 * the build makes this module and Ink's `yoga-layout` one module from yoga's public
 * `yoga-layout/load`, and this promise resolves once it has loaded (scripts/bundle-options.mjs).
 */
export const yogaReady: Promise<void> = Promise.resolve();
