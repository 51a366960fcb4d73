// Runs the CLI from source (under tsx): what the embedded demo forks when it is not bundled.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
