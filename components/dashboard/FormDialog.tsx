'use client';

import { useId, type ReactNode, type RefObject } from 'react';
import { Button, dialogClass } from './ui';

/**
 * The dashboard's modal form (held funds' release, a refund): a native <dialog> (focus kept inside,
 * Escape closes), labelled by its heading, with the form's fields and, last, Cancel beside the one
 * action. The caller owns `dialogRef` (it opens the dialog with showModal() and closes it once the
 * action succeeded) and decides what submitting does.
 */
export function FormDialog({
  dialogRef,
  title,
  onSubmit,
  action,
  actionDisabled,
  children,
}: {
  dialogRef: RefObject<HTMLDialogElement | null>;
  title: ReactNode;
  onSubmit: () => void;
  /** The submit button's words ("Forward 20 TRX", "Show the cost"). */
  action: string;
  actionDisabled: boolean;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <dialog ref={dialogRef} aria-labelledby={`${id}-title`} className={dialogClass}>
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        <h2 id={`${id}-title`} className="text-base font-semibold">
          {title}
        </h2>
        {children}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={() => dialogRef.current?.close()}>
            Cancel
          </Button>
          <Button type="submit" disabled={actionDisabled}>
            {action}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
