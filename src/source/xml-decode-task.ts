/**
 * The task a decoding thread runs (see xml-decoder.ts): an XML reply's bytes in, the plain tree
 * out as JSON text in UTF-8, moved to the main thread. Why: docs/source-client.md#xml-off-the-main-thread
 */
import type { MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import {
  decodeXmlRecognizing,
  decodeXmlToJson,
  type ContainerPath,
  type RecognizedJson,
} from './codec-xml-split.js';

export interface XmlDecodeTask {
  /** The reply's UTF-8 bytes, moved to the thread. */
  bytes: Uint8Array;
  /** Where the records' container sits below the root. */
  container: ContainerPath;
  /** The records' element, the digests' salt, and the port to ask which records to pass over. */
  recognize?: { item: string; salt: string; port: MessagePort };
}

/** What the main thread answers on the port: which records to pass over, or why it cannot say. */
export type PassOverAnswer = { passed: boolean[] } | { error: string };

/** Sends the digests over the port and waits for the answer. */
function ask(port: MessagePort, digests: string[]): Promise<boolean[]> {
  return new Promise((resolve, reject) => {
    const onClose = () =>
      reject(new Error('the main thread closed the port before answering which records to pass over'));
    port.once('close', onClose);
    port.once('message', (answer: PassOverAnswer) => {
      port.off('close', onClose);
      if ('error' in answer) reject(new Error(answer.error));
      else resolve(answer.passed);
    });
    port.postMessage(digests);
  });
}

/**
 * The result, its JSON bytes' buffer moved to the main thread rather than copied into a message,
 * and the reply's bytes moved back with it, unreferenced: they leave this thread now, not when
 * its heap is next collected (its heap is small, and buffers held outside it add up meanwhile).
 */
function moved(result: RecognizedJson, reply: Uint8Array): RecognizedJson {
  // piscina's own protocol of a value with its transferables (its types name the symbols only as `symbol`).
  const value = {
    [Piscina.transferableSymbol]: [result.json.buffer, reply.buffer],
    [Piscina.valueSymbol]: result,
  } as unknown as Parameters<typeof Piscina.move>[0];
  return Piscina.move(value) as unknown as RecognizedJson;
}

export default async function decodeXmlTask(task: XmlDecodeTask): Promise<RecognizedJson> {
  const recognize = task.recognize;
  if (!recognize) return moved({ json: decodeXmlToJson(task.bytes, task.container) }, task.bytes);
  try {
    return moved(
      await decodeXmlRecognizing(task.bytes, task.container, {
        item: recognize.item,
        salt: recognize.salt,
        passOver: (digests) => ask(recognize.port, digests),
      }),
      task.bytes,
    );
  } finally {
    recognize.port.close();
  }
}
