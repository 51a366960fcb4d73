import React from 'react';
import { Box, Text } from 'ink';
import { describeError } from '../client/errors.js';
import { sanitize } from '../text/sanitize.js';
import { colour } from './theme.js';

/** Turns any error into plain words plus the code and request id an operator can quote. */
export function errorLines(err: unknown): { headline: string; reference: string | null; details: string[] } {
  const d = describeError(err);
  const ref = [d.code ? `code ${d.code}` : null, d.requestId ? `request ${d.requestId}` : null]
    .filter(Boolean)
    .join(' · ');
  return {
    headline: sanitize(d.headline, 500),
    reference: ref ? sanitize(ref, 200) : null,
    details: d.lines.map((l) => sanitize(l, 300)),
  };
}

export function ErrorBanner({
  error,
  prefix,
  maxDetails = 3,
}: {
  error: unknown;
  prefix?: string;
  maxDetails?: number;
}) {
  const { headline, reference, details } = errorLines(error);
  return (
    <Box flexDirection="column">
      <Text color={colour('bad')} wrap="truncate">
        ✕ ERROR {prefix ? `${prefix}: ` : ''}
        {headline}
      </Text>
      {reference ? (
        <Text dimColor wrap="truncate">
          {' '}
          {reference}
        </Text>
      ) : null}
      {details.slice(0, maxDetails).map((l, i) => (
        <Text key={i} wrap="truncate">
          {' '}
          • {l}
        </Text>
      ))}
    </Box>
  );
}
