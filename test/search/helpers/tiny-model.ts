// Builds a tiny sentence-embedding model on disk, in the layout @huggingface/transformers loads
// (<root>/<model id>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx}), so the
// transformers embedder is tested end to end with no download. The ONNX graph is one Gather: each token id
// picks a row of an embedding table, and the library's mean pooling and normalisation do the rest. Words
// listed together in `topics` share a row direction, so the model has a little real "semantics".
import fs from 'node:fs';
import path from 'node:path';

// ---- A minimal protobuf writer: just what onnx.proto needs ----

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const intField = (field: number, n: number | bigint) => [...key(field, 0), ...varint(n)];
function bytesField(field: number, bytes: Uint8Array | number[]): number[] {
  return [...key(field, 2), ...varint(bytes.length), ...bytes];
}
const strField = (field: number, s: string) => bytesField(field, [...Buffer.from(s, 'utf8')]);
const msg = (...parts: number[][]) => parts.flat();

const FLOAT = 1;
const INT64 = 7;

/** onnx.ValueInfoProto with a tensor type; dims are numbers (fixed) or strings (symbolic). */
function valueInfo(name: string, elemType: number, dims: (number | string)[]): number[] {
  const shape = msg(...dims.map((d) => bytesField(1, typeof d === 'number' ? intField(1, d) : strField(2, d))));
  const tensorType = msg(intField(1, elemType), bytesField(2, shape));
  return msg(strField(1, name), bytesField(2, bytesField(1, tensorType)));
}

function onnxGatherModel(table: Float32Array, vocabSize: number, hidden: number): Uint8Array {
  const tensor = msg(
    intField(1, vocabSize),
    intField(1, hidden),
    intField(2, FLOAT),
    strField(8, 'embeddings'),
    bytesField(9, new Uint8Array(table.buffer, table.byteOffset, table.byteLength)),
  );
  const node = msg(strField(1, 'embeddings'), strField(1, 'input_ids'), strField(2, 'last_hidden_state'), strField(3, 'gather'), strField(4, 'Gather'));
  const graph = msg(
    bytesField(1, node),
    strField(2, 'tiny-embedder'),
    bytesField(5, tensor),
    bytesField(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytesField(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytesField(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])),
  );
  const opset = msg(strField(1, ''), intField(2, 13));
  return Uint8Array.from(msg(intField(1, 8), strField(2, 'kb-test'), bytesField(7, graph), bytesField(8, opset)));
}

export interface TinyModel {
  root: string;
  modelId: string;
  hidden: number;
}

/**
 * Writes the model under `root/modelId`. Every word of `topics[i]` points along axis i (plus a small
 * word-specific component), so texts about the same topic embed close together; other words are [UNK].
 */
export function writeTinyModel(root: string, modelId: string, topics: string[][], hidden = 16): TinyModel {
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
  const words = [...new Set(topics.flat())];
  const vocab = [...special, ...words];
  const table = new Float32Array(vocab.length * hidden);
  // [CLS], [SEP], [UNK] get a weak shared direction so they barely move the mean.
  for (const t of [1, 2, 3]) table[t * hidden + hidden - 1] = 0.05;
  topics.forEach((topic, axis) => {
    for (const w of topic) {
      const row = vocab.indexOf(w);
      table[row * hidden + (axis % (hidden - 1))] = 1;
      table[row * hidden + ((row * 7) % (hidden - 1))] += 0.1;
    }
  });
  const dir = path.join(root, modelId);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), onnxGatherModel(table, vocab.length, hidden));
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: hidden, vocab_size: vocab.length, max_position_embeddings: 128 }),
  );
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 128, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]' }),
  );
  const vocabMap = Object.fromEntries(vocab.map((w, i) => [w, i]));
  fs.writeFileSync(
    path.join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: vocabMap },
    }),
  );
  return { root, modelId, hidden };
}
