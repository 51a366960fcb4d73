import React, { useCallback } from 'react';
import { useStore } from 'zustand';
import { ConfirmDialog } from '../widgets/dialogs/ConfirmDialog.js';
import { TypeToConfirmDialog } from '../widgets/dialogs/TypeToConfirmDialog.js';
import { FormDialog } from '../widgets/dialogs/FormDialog.js';
import { PickerDialog } from '../widgets/dialogs/PickerDialog.js';
import { MessageDialog } from '../widgets/dialogs/MessageDialog.js';
import { SecretDialog } from '../widgets/dialogs/SecretDialog.js';
import { ProgressDialog } from '../widgets/dialogs/ProgressDialog.js';
import { SignInDialog } from '../widgets/dialogs/SignInDialog.js';
import { closeDialog, reportForm } from '../state/dialogs.js';
import { useDeps } from './deps.js';
import type { FormStatus } from '../kit/dialog-specs.js';

/** Renders the top dialog of the stack; it alone gets the keys (none while `isActive` is false). */
export function DialogHost({ width, height, isActive = true }: { width: number; height: number; isActive?: boolean }) {
  const deps = useDeps();
  const top = useStore(deps.dialogs, (s) => s.stack[s.stack.length - 1]);
  const topId = top?.id;
  const onFormStatus = useCallback(
    (status: FormStatus) => {
      if (topId !== undefined) reportForm(deps.dialogs, topId, status);
    },
    [deps, topId],
  );
  if (!top) return null;
  const done = (v?: unknown) => closeDialog(deps.dialogs, top.id, v);
  const s = top.spec;
  const common = { width, isActive };
  switch (s.kind) {
    case 'confirm':
      return (
        <ConfirmDialog
          key={top.id}
          {...common}
          title={s.title}
          message={s.message}
          confirmLabel={s.confirmLabel}
          danger={s.danger}
          onDone={done}
        />
      );
    case 'typeToConfirm':
      return (
        <TypeToConfirmDialog
          key={top.id}
          {...common}
          title={s.title}
          message={s.message}
          expected={s.expected}
          onDone={done}
        />
      );
    case 'form':
      return (
        <FormDialog
          key={top.id}
          {...common}
          height={height}
          title={s.title}
          message={s.message}
          fields={s.fields}
          focus={s.focus}
          submitLabel={s.submitLabel}
          onDone={done}
          onStatus={onFormStatus}
        />
      );
    case 'pick':
      return (
        <PickerDialog
          key={top.id}
          {...common}
          height={height}
          title={s.title}
          message={s.message}
          items={s.items}
          onDone={done}
        />
      );
    case 'message':
      return (
        <MessageDialog
          key={top.id}
          {...common}
          height={height}
          title={s.title}
          lines={s.lines}
          tone={s.tone}
          choices={s.choices}
          onDone={done}
        />
      );
    case 'secret':
      return (
        <SecretDialog
          key={top.id}
          {...common}
          title={s.title}
          secret={s.secret}
          lines={s.lines}
          copy={deps.clipboard}
          onDone={done}
        />
      );
    case 'progress':
      return (
        <ProgressDialog
          key={top.id}
          {...common}
          title={s.title}
          lines={s.lines}
          fraction={s.fraction}
          tone={s.tone}
          escStops={s.escStops}
          onCancel={() => done('cancelled')}
        />
      );
    case 'signIn':
      return (
        <SignInDialog
          key={top.id}
          {...common}
          height={height}
          phase={s.phase}
          title={s.title}
          lines={s.lines}
          prompt={s.prompt}
          onDone={done}
        />
      );
  }
}
