/** Form fields and their parsing, apart from rendering so both can be tested on their own. */
import { charCount } from './edit.js';
import type { FormField, FormValue, FormValues } from '../../kit/dialog-specs.js';

export const initialText = (f: FormField): string => {
  switch (f.kind) {
    case 'text':
      return f.initial ?? '';
    case 'limit':
      return f.initial === null || f.initial === undefined ? '' : String(f.initial);
    case 'number':
      return f.initial === undefined ? '' : String(f.initial);
    case 'select':
      return f.initial ?? f.options[0]?.value ?? '';
  }
};

const WHOLE = /^\d+$/;

/** Parses what the user typed; an error is a short phrase shown under the field. */
export function parseField(
  f: FormField,
  raw: string,
  form?: Record<string, string>,
): { value: FormValue } | { error: string } {
  const t = raw.trim();
  switch (f.kind) {
    case 'text': {
      if (f.required && t === '') return { error: 'required' };
      if (f.maxLength !== undefined && charCount(t) > f.maxLength)
        return { error: `at most ${f.maxLength} characters` };
      const custom = f.validate?.(t, form);
      return custom ? { error: custom } : { value: t };
    }
    case 'limit': {
      if (t === '') return { value: null };
      const n = Number(t.replace(/[_,]/g, ''));
      if (!WHOLE.test(t.replace(/[_,]/g, '')) || !Number.isSafeInteger(n))
        return { error: 'a whole number ≥ 0, or empty for unlimited' };
      return { value: n };
    }
    case 'number': {
      if (t === '') return f.required ? { error: 'required' } : { value: null };
      const n = Number(t);
      if (!Number.isFinite(n)) return { error: 'a number' };
      if (f.min !== undefined && n < f.min) return { error: `at least ${f.min}` };
      if (f.max !== undefined && n > f.max) return { error: `at most ${f.max}` };
      return { value: n };
    }
    case 'select':
      return f.options.some((o) => o.value === raw) ? { value: raw } : { error: 'choose one of the options' };
  }
}

/** Parses every field; errors by field name. */
export function parseForm(
  fields: FormField[],
  raw: Record<string, string>,
): { values: FormValues; errors: Record<string, string> } {
  const values: FormValues = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const r = parseField(f, raw[f.name] ?? '', raw);
    if ('error' in r) errors[f.name] = r.error;
    else values[f.name] = r.value;
  }
  return { values, errors };
}
