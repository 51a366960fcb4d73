/** What a screen may ask of a failed call: its kind, and its text for the operator. */
export { ApiError, TransportError, describeError } from '../../client/errors.js';
