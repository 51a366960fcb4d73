// The floor of the dashboard's stack, for the start benchmark: React and Ink, bundled with the
// dashboard's own settings (scripts/bundle-options.mjs) and loaded as the CLI loads the dashboard
// (lib/ink-floor-launch.ts), drawing one line with the CLI's frame options. No network, no
// contract, no screens. It stays up until q, as the dashboard does.
import React from 'react';
import { render, Text, useApp, useInput } from 'ink';
import { yogaReady } from '../../../src/dashboard/terminal/yoga-ready.js';

function Floor() {
  const { exit } = useApp();
  useInput((input) => {
    if (input === 'q') exit();
  });
  return <Text>appliance-admin · Team share</Text>;
}

export async function start(): Promise<void> {
  await yogaReady;
  render(<Floor />, { maxFps: 60, incrementalRendering: false, exitOnCtrlC: true });
}
