/**
 * The task a decoding thread runs (see xml-decoder.ts): an XML reply's bytes in, the plain tree
 * out as JSON text. Why JSON text: docs/source-client.md#xml-off-the-main-thread
 */
import type { MessagePort } from 'node:worker_threads';
import { decodeXmlRecognizing, decodeXmlToJson, type ContainerPath, type RecognizedJson } from './codec-xml-split.js';

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
    const onClose = () => reject(new Error('the main thread closed the port before answering which records to pass over'));
    port.once('close', onClose);
    port.once('message', (answer: PassOverAnswer) => {
      port.off('close', onClose);
      if ('error' in answer) reject(new Error(answer.error));
      else resolve(answer.passed);
    });
    port.postMessage(digests);
  });
}

export default async function decodeXmlTask(task: XmlDecodeTask): Promise<RecognizedJson> {
  const text = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength).toString('utf8');
  const recognize = task.recognize;
  if (!recognize) return { json: decodeXmlToJson(text, task.container) };
  try {
    return await decodeXmlRecognizing(text, task.container, { item: recognize.item, salt: recognize.salt, passOver: (digests) => ask(recognize.port, digests) });
  } finally {
    recognize.port.close();
  }
}
