import { ConnectionError, RunpodError, StreamError, TimeoutError } from '../errors.js';
import { sleep, startTimer } from '../transport/abort.js';
import { CREATE_MARKER_ENV } from '../transport/create-marker.js';
import { createOnce } from '../transport/create-once-kit.js';
import { redactUrl } from '../transport/redact.js';
import { backoffMs } from '../transport/retry.js';
import { isRecord, isString } from '../transport/shape.js';
import { PAGE_LIMIT, pagedList } from './pager.js';

/**
 * What rest/create-once.ts and rest/log-stream.ts use of the start-up modules, handed to them
 * rather than imported: one of the three kits kept on measure (with transport/create-once-kit.ts's
 * and serverless/queue.ts's); every other lazily loaded module imports what it uses. Plain imports
 * in these two cost the start-up 1,326 B gzipped (esbuild code splitting, 2026-11-28): esbuild
 * would split the helpers they share with the start-up into chunks of their own (see the transport
 * README).
 */
export const kit = { ConnectionError, RunpodError, StreamError, TimeoutError, createOnce, sleep, startTimer, backoffMs, isRecord, isString, redactUrl, CREATE_MARKER_ENV, pagedList, PAGE_LIMIT };
export type LazyKit = typeof kit;
