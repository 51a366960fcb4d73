import { useEffect, useRef } from 'react';
import { useStdin } from 'ink';

/** Takes a paste (the text between the terminal's paste brackets); true when it used it. */
export type PasteHandler = (text: string) => boolean;

/**
 * What the stdin given to Ink offers for pastes (src/dashboard/terminal/key-stdin.ts): a paste never goes
 * through Ink's keys, so its line breaks cannot act as Enter, nor its letters as commands.
 */
export interface PasteSource {
  /** the newest handler is asked first; returns the unsubscribe */
  onPaste(handler: PasteHandler): () => void;
}

/** Emitted on the stdin when no handler took a paste. */
export const PASTE_IGNORED = 'paste-ignored';

function pasteSource(stdin: unknown): PasteSource | null {
  return stdin && typeof (stdin as Partial<PasteSource>).onPaste === 'function' ? (stdin as PasteSource) : null;
}

/** Receives pastes while `isActive` (a focused text field). */
export function usePaste(handler: PasteHandler, { isActive }: { isActive: boolean }): void {
  const { stdin } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const source = pasteSource(stdin);
    if (!isActive || !source) return;
    return source.onPaste((text) => latest.current(text));
  }, [stdin, isActive]);
}

/** Called when a paste arrived and nothing on screen takes text. */
export function usePasteIgnored(handler: () => void): void {
  const { stdin } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const on = () => latest.current();
    stdin.on(PASTE_IGNORED, on);
    return () => {
      stdin.off(PASTE_IGNORED, on);
    };
  }, [stdin]);
}
