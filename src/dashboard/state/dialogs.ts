import { createStore } from 'zustand/vanilla';
import type { Tone } from '../kit/theme.js';
import type { FormField } from '../kit/dialog-specs.js';
import type { MessageChoice } from '../kit/dialog-specs.js';
import type { PickerItem } from '../kit/dialog-specs.js';
import type { SignInPhase, SignInPrompt } from '../kit/dialog-specs.js';
import type { FormStatus } from '../kit/dialog-specs.js';

export type DialogSpec =
  | { kind: 'confirm'; title: string; message: string | string[]; confirmLabel?: string; danger?: boolean }
  | { kind: 'typeToConfirm'; title: string; message: string | string[]; expected: string }
  | {
      kind: 'form';
      title: string;
      fields: FormField[];
      submitLabel?: string;
      message?: string | string[];
      focus?: string;
    }
  | { kind: 'pick'; title: string; items: PickerItem[]; message?: string }
  | { kind: 'message'; title: string; lines: string[]; tone?: Tone; choices?: MessageChoice[] }
  | { kind: 'secret'; title: string; secret: string; lines: string[] }
  | {
      kind: 'progress';
      title: string;
      lines: string[];
      fraction?: number | null;
      tone?: Tone;
      /** Esc ends the work itself (a verify, a pack), rather than only the following of it */
      escStops?: boolean;
    }
  | { kind: 'signIn'; phase: SignInPhase; title: string; lines: string[]; prompt?: SignInPrompt };

interface OpenDialog {
  id: number;
  spec: DialogSpec;
  /** a form's focus and refused submits, as it reports them (reportForm) */
  form?: FormStatus;
  resolve(value: unknown): void;
}

export interface DialogState {
  stack: OpenDialog[];
}
export type DialogStore = ReturnType<typeof createDialogStore>;

export const createDialogStore = () => createStore<DialogState>(() => ({ stack: [] }));

let nextId = 1;

/** Shows a dialog on top; resolves with what the user chose when it closes. */
export function openDialog<T>(store: DialogStore, spec: DialogSpec): { id: number; done: Promise<T> } {
  const id = nextId++;
  const done = new Promise<T>((resolve) => {
    store.setState((s) => ({ stack: [...s.stack, { id, spec, resolve: resolve as (v: unknown) => void }] }));
  });
  return { id, done };
}

/** Removes the dialog (and with it every reference to what it showed) and resolves it. */
export function closeDialog(store: DialogStore, id: number, value?: unknown) {
  const d = store.getState().stack.find((x) => x.id === id);
  if (!d) return;
  store.setState((s) => ({ stack: s.stack.filter((x) => x.id !== id) }));
  d.resolve(value);
}

export function updateDialog(store: DialogStore, id: number, patch: Partial<DialogSpec>) {
  store.setState((s) => ({
    stack: s.stack.map((x) => (x.id === id ? { ...x, spec: { ...x.spec, ...patch } as DialogSpec } : x)),
  }));
}

/** A form's focus and refused submits, kept with it for the screen-reader mode to say. */
export function reportForm(store: DialogStore, id: number, form: FormStatus) {
  // a form closing reports nothing more worth a new stack
  if (!store.getState().stack.some((x) => x.id === id)) return;
  store.setState((s) => ({ stack: s.stack.map((x) => (x.id === id ? { ...x, form } : x)) }));
}
