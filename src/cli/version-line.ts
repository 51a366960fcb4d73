import { VERSION } from '../contract/version.js';

/** Set by the build (scripts/build-commit.mjs, esbuild's define); absent when run from source. */
declare const APPLIANCE_ADMIN_COMMIT: string | undefined;

/** The commit the running build was made from: `abc1234`, `abc1234-dirty`, or why there is none. */
const BUILD_COMMIT: string =
  typeof APPLIANCE_ADMIN_COMMIT === 'string' ? APPLIANCE_ADMIN_COMMIT : 'run from source, not built';

/** `appliance-admin --version`: `appliance-admin 0.1.0 (abc1234)`, the same from npm's build and the single file. */
export const versionLine = (): string => `appliance-admin ${VERSION} (${BUILD_COMMIT})`;
