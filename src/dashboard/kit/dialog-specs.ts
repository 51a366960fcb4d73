/**
 * What a screen's action asks the operator through the shell's dialogs: the fields of a form, a
 * message's choices, a picker's items, a sign-in's prompt. Data only; the dialogs that draw them
 * are widgets (src/dashboard/widgets/dialogs/).
 */
interface FieldBase {
  name: string;
  label: string;
  hint?: string;
  /**
   * A value that follows other fields as the operator changes them (the export's file name follows
   * its format; the time range becomes custom once a time is typed): `value` is given the form as
   * typed after a change to one of `fields`, and returns this field's new text (null: unchanged). A
   * typed field the operator has typed into is theirs and no longer follows.
   */
  follows?: { fields: string[]; value: (form: Record<string, string>) => string | null };
}
/** What Tab in a completing field gives: the text completed as far as it is sure, and the choices left. */
export interface Completion {
  text: string;
  candidates: string[];
}

export type FormField =
  /**
   * `validate` also gets the whole form as typed, for a rule across fields (until after from);
   * `complete` makes Tab complete the field (a path) instead of moving to the next one
   */
  | (FieldBase & {
      kind: 'text';
      initial?: string;
      required?: boolean;
      maxLength?: number;
      validate?: (v: string, form?: Record<string, string>) => string | null;
      complete?: (v: string) => Promise<Completion>;
    })
  /** a whole number >= 0, or empty for unlimited (null) */
  | (FieldBase & { kind: 'limit'; initial?: number | null })
  | (FieldBase & { kind: 'number'; initial?: number; min?: number; max?: number; required?: boolean })
  | (FieldBase & { kind: 'select'; options: { value: string; label: string }[]; initial?: string });

export type FormValue = string | number | null;
export type FormValues = Record<string, FormValue>;

/** A key that closes the message with what to do next (the action log's entry: `a` opens it on the audit screen). */
export interface MessageChoice {
  key: string;
  label: string;
}

export interface PickerItem {
  label: string;
  hint?: string;
}

/** What the person needs to approve the sign-in on another device. */
export interface SignInPrompt {
  verificationUri: string;
  verificationUriComplete?: string;
  userCode: string;
  /** when the code runs out, as a local time */
  until: string;
  /** the QR code of the page, as renderQr(…, { color: false }) draws it */
  qr: string[];
}

export type SignInPhase = 'explain' | 'waiting' | 'failed';

/** The focused field, as typed, and the fields a refused submit found wrong. */
export interface FormStatus {
  focus: number;
  /** the focused field's text (a select's value) */
  value: string;
  errors: Record<string, string>;
  /** how many submits the fields' checks refused */
  refused: number;
}
