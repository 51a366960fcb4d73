// Imported first by benchmarks that render the dashboard in process: the CLI's bundle is built
// with NODE_ENV=production (scripts/build.mjs), so React must run its production build here too.
process.env.NODE_ENV = 'production';
