// The floor of the dashboard's stack, for the start benchmark: React and Ink, bundled with the
// CLI's own settings (scripts/bundle-options.mjs), drawing one line with the CLI's frame options.
// No network, no contract, no screens. It stays up until q, as the dashboard does.
import React from 'react';
import { render, Text, useApp, useInput } from 'ink';

function Floor() {
  const { exit } = useApp();
  useInput((input) => {
    if (input === 'q') exit();
  });
  return <Text>appliance-admin · Team share</Text>;
}

render(<Floor />, { maxFps: 60, incrementalRendering: false, exitOnCtrlC: true });
