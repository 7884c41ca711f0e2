import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { ApiError, ERROR_CODE } from './errors.js';
import {
  formatOfContentType,
  parseRequestEnvelope,
  sniffFormat,
  type RequestEnvelope,
  type WireFormat,
} from './formats.js';
import type { ApiRoute } from './routes.js';

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
        reject(
          new ApiError(
            ERROR_CODE.invalidParameter,
            `Invalid parameter 'requestBody': larger than ${MAX_BODY_BYTES} bytes`,
          ),
        );
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
      reject(
        new ApiError(
          ERROR_CODE.invalidParameter,
          `Invalid parameter 'requestBody': unreadable multipart body (${(error as Error).message})`,
        ),
      );
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
      reject(
        new ApiError(
          ERROR_CODE.invalidParameter,
          `Invalid parameter 'requestBody': unreadable multipart body (${error.message})`,
        ),
      ),
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
      throw new ApiError(
        ERROR_CODE.invalidParameter,
        `Invalid parameter 'requestBody': missing multipart part 'requestBody'`,
      );
    }
    const format = formatOfContentType(fields.requestContentType) ?? sniffFormat(fields.requestBody);
    return { format, text: fields.requestBody };
  }
  const text = (await readRaw(req)).toString('utf8');
  const format = formatOfContentType(contentType) ?? sniffFormat(text);
  if (text.trim() === '')
    throw new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': empty request body`);
  return { format, text };
}

/**
 * Reads the envelope of a gateway call (`/ext/orgs/<org>/v1/<area>`): the body itself, JSON
 * with `Content-Type: application/json`. A multipart, XML or untyped body is refused with code
 * 400: the gateway takes none of them.
 */
export async function readGatewayText(req: IncomingMessage): Promise<RequestText> {
  const text = (await readRaw(req)).toString('utf8');
  if (formatOfContentType(req.headers['content-type']) !== 'json') {
    throw new ApiError(
      ERROR_CODE.invalidParameter,
      `Invalid parameter 'requestBody': the gateway takes the envelope as a JSON body with ` +
        `Content-Type: application/json`,
    );
  }
  if (text.trim() === '')
    throw new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter 'requestBody': empty request body`);
  return { format: 'json', text };
}

/** A request's envelope and its format, or the error that says why it cannot be read. */
export interface ReadEnvelope {
  format: WireFormat;
  envelope?: RequestEnvelope;
  readError?: unknown;
}

/**
 * Reads and decodes the envelope of a call on its route: multipart or raw JSON/XML on Basic
 * auth's path (an unreadable multipart body throws at once), the JSON body on the gateway's.
 * An envelope that cannot be read comes back as `readError`, for the server to throw once the
 * credential is checked.
 */
export async function readEnvelope(route: ApiRoute, req: IncomingMessage): Promise<ReadEnvelope> {
  let text: RequestText;
  if (route.auth === 'apikey') {
    try {
      text = await readGatewayText(req);
    } catch (error) {
      return { format: 'json', readError: error };
    }
  } else {
    text = await readRequestText(req);
  }
  try {
    return { format: text.format, envelope: parseRequestEnvelope(text.format, text.text) };
  } catch (error) {
    return { format: text.format, readError: error };
  }
}
