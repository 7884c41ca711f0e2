import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { ApiError, ERROR_CODE } from './errors.js';
import { formatOfContentType, sniffFormat, type WireFormat } from './formats.js';

/** Largest request body the simulator reads (envelopes are small; file parts are drained). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** The envelope text of a request and the format it was sent in. */
export interface RequestText {
  format: WireFormat;
  text: string;
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': larger than ${MAX_BODY_BYTES} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function readMultipart(req: IncomingMessage): Promise<{ requestBody?: string; requestContentType?: string }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: MAX_BODY_BYTES } });
    } catch (error) {
      reject(new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': unreadable multipart body (${(error as Error).message})`));
      return;
    }
    const fields: { requestBody?: string; requestContentType?: string } = {};
    parser.on('field', (name, value) => {
      if (name === 'requestBody') fields.requestBody = value;
      else if (name === 'requestContentType') fields.requestContentType = value;
    });
    // Read methods ignore file parts (file1, file2, ...): drain them.
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('close', () => resolve(fields));
    parser.on('error', (error: Error) =>
      reject(new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': unreadable multipart body (${error.message})`)),
    );
    req.pipe(parser);
  });
}

/**
 * Reads the request envelope from a `multipart/form-data` body (text parts `requestBody` and
 * `requestContentType`, the latter compared case-insensitively; file parts ignored) or from a
 * raw body whose `Content-Type` is JSON or XML. A body that names no format is sniffed.
 */
export async function readRequestText(req: IncomingMessage): Promise<RequestText> {
  const contentType = req.headers['content-type'] ?? '';
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    const fields = await readMultipart(req);
    if (fields.requestBody === undefined || fields.requestBody.trim() === '') {
      throw new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': missing multipart part 'requestBody'`);
    }
    const format = formatOfContentType(fields.requestContentType) ?? sniffFormat(fields.requestBody);
    return { format, text: fields.requestBody };
  }
  const text = (await readRaw(req)).toString('utf8');
  const format = formatOfContentType(contentType) ?? sniffFormat(text);
  if (text.trim() === '') throw new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': empty request body`);
  return { format, text };
}
