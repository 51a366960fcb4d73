import React, { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Box, measureElement, type DOMElement } from 'ink';
import { useStore } from 'zustand';
import { DialogHost } from './DialogHost.js';
import { useDeps } from './deps.js';

/** Lines the view behind a dialog needs to be worth drawing: a summary, the header, the cursor's row, the position. */
const MIN_VIEW_LINES = 4;

/**
 * The body: the view (the list, a detail, help) and, while a dialog is open, the dialog under it,
 * the view drawn in the lines the dialog leaves so the operator keeps the row acted on in sight
 * (the table keeps the cursor's row inside the room it gets). The dialog's height is measured once
 * laid out; a dialog taller than the body allows leaves no room and the view gives way, never the
 * dialog. The view stays mounted in the same place, open dialog or not. Only the dialog gets keys.
 */
export function BodyWithDialog({
  width,
  height,
  dialogOpen,
  isActive,
  view,
}: {
  width: number;
  height: number;
  dialogOpen: boolean;
  /** the dialog takes keys (false while the window is too small) */
  isActive: boolean;
  /** the view, drawn in `height` lines */
  view: (height: number) => ReactNode;
}) {
  const deps = useDeps();
  // a dialog that changes (progress, a refused form's errors) draws this again, and is measured again
  useStore(deps.dialogs, (s) => s.stack.at(-1));
  const dialog = useRef<DOMElement>(null);
  const [dialogHeight, setDialogHeight] = useState<number | null>(null);
  // After every render: the dialog's height is known only once laid out. Set only when it changed,
  // and the room it leaves does not change the dialog, so this settles in one more render.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const measured = dialogOpen && dialog.current ? measureElement(dialog.current).height : null;
    if (measured !== dialogHeight) setDialogHeight(measured);
  });
  // Before its first measure the dialog is laid out under the full-height view, which layout
  // squeezes: the dialog is whole from its first frame, the view gets its exact room on the next.
  const room = dialogOpen && dialogHeight !== null ? height - dialogHeight : height;
  const showView = room >= MIN_VIEW_LINES;
  return (
    <Box height={height} flexDirection="column" justifyContent={showView ? 'flex-start' : 'center'} overflow="hidden">
      <Box display={showView ? 'flex' : 'none'} height={room} flexShrink={1} flexDirection="column" overflow="hidden">
        {view(Math.max(room, MIN_VIEW_LINES))}
      </Box>
      {dialogOpen ? (
        <Box ref={dialog} flexDirection="column" flexShrink={0}>
          <DialogHost width={width} height={height} isActive={isActive} />
        </Box>
      ) : null}
    </Box>
  );
}
