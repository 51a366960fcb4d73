/** `completion`: shell completion scripts made from this table (src/cli/completion.ts). */
import type { CommandSpec } from './spec.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export const COMPLETION: CommandSpec = {
  name: 'completion',
  summary: 'a completion script for bash, zsh or fish, on stdout',
  usage: ['completion bash|zsh|fish'],
  description: `Prints a script that completes appliance-admin's commands, options, screen names and the
appliance names of the config file (read when completing: the script asks
appliance-admin itself, which prints names only, never a token). Load it in the shell's
start file, or install it where the shell finds completions (the .deb does):
  bash: appliance-admin completion bash > ~/.local/share/bash-completion/completions/appliance-admin
  zsh:  appliance-admin completion zsh > ~/.zfunc/_appliance-admin   (with fpath+=(~/.zfunc) before compinit)
  fish: appliance-admin completion fish > ~/.config/fish/completions/appliance-admin.fish`,
  arguments: [{ name: 'SHELL', completes: { choices: SHELLS } }],
  exitStatus: '0 printed, 2 bad usage (no shell or an unknown one).',
  examples: [
    {
      command: 'completion bash > ~/.local/share/bash-completion/completions/appliance-admin',
      says: 'bash, for this user',
    },
  ],
};

/** The scripts' call back into the CLI: the candidates for a command line (not in help or man pages). */
export const COMPLETE: CommandSpec = {
  name: '__complete',
  summary: 'the completion candidates for a command line (used by the completion scripts)',
  usage: ['__complete WORD… CURRENT'],
  hidden: true,
};
