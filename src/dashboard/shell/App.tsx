import React, { Component, type ReactNode } from 'react';
import { useApp } from 'ink';
import { DepsContext, type DashboardDeps } from './deps.js';
import { Shell } from './Shell.js';

class Boundary extends Component<{ onError(err: Error): void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(err: Error) {
    this.props.onError(err);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

function ExitOnError({ children }: { children: ReactNode }) {
  const { exit } = useApp();
  return <Boundary onError={(err) => exit(err)}>{children}</Boundary>;
}

/** The whole dashboard for one set of deps: what the CLI and the tests render. */
export function App({ deps }: { deps: DashboardDeps }) {
  return (
    <DepsContext.Provider value={deps}>
      <ExitOnError>
        <Shell />
      </ExitOnError>
    </DepsContext.Provider>
  );
}
