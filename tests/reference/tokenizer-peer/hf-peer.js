#!/usr/bin/env node
// hf-peer.js — token ids of each corpus line from the real Hugging Face `tokenizers` library.
//
// Usage: node hf-peer.js WORKDIR CORPUS.jsonl TRAIN.txt OUT_DIR [--named-only] NAME=TOKENIZER.json...
// Exit status: 0 done, 3 the npm install failed (no registry?), anything else: a real failure.
//
// 1. Installs the npm package `tokenizers` (Hugging Face's Rust library with its Node binding)
//    into WORKDIR.
// 2. Builds the synthetic tokenizers (below) with that library: models trained by its own
//    trainers on TRAIN.txt, then the components each one is meant to exercise set in the JSON;
//    each is written to OUT_DIR/NAME/tokenizer.json.
// 3. For every tokenizer (the synthetic ones and the NAME=PATH arguments), writes
//    OUT_DIR/names.txt (NAME<tab>PATH lines) and OUT_DIR/NAME.jsonl: one object per corpus line (a JSON string),
//      {"ids": [...],      // encode(text, null, {addSpecialTokens: true})
//       "plain": [...],    // encode(text, null, {addSpecialTokens: false})
//       "text": "...",     // decode(plain ids, skipSpecialTokens = false)
//       "pair_ids": [...], "pair_types": [...]}  // every 7th line: encode(text, next line)
// With --named-only only the NAME=PATH tokenizers are encoded (no synthetic ones, no Phi-3):
// test-tokenizer-family-peer.c's T5, mT5, BART and Gemma files.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const PACKAGE = 'tokenizers@0.23.2';

function install (workdir) {
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', workdir,
      PACKAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    process.stderr.write(`npm install ${PACKAGE} failed: ${e.message}\n`);
    process.exit(3);
  }
  return require(path.join(workdir, 'node_modules', 'tokenizers'));
}

// Trains MODEL (BPE, WordPiece, WordLevel, Unigram) on TRAIN with a Whitespace pre-tokenizer
// and returns the saved JSON as an object.
function trained (tk, Model, train, tmp, preTokenizer) {
  const t = new tk.Tokenizer(Model.empty());
  t.setPreTokenizer(preTokenizer || tk.whitespacePreTokenizer());
  t.train([train]);
  const file = path.join(tmp, 'trained.json');
  t.save(file);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// A WordLevel model trained on TRAIN, with "[UNK]" as its unknown token.
function wordLevel (tk, train, tmp) {
  const m = trained(tk, tk.WordLevel, train, tmp).model;
  m.unk_token = '[UNK]';
  if (!('[UNK]' in m.vocab))
    m.vocab['[UNK]'] = nextId(m);
  return m;
}

function added (id, content, opts) {
  return Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false,
    normalized: false, special: false }, opts);
}

// Adds "<0x00>".."<0xFF>" to a BPE/WordPiece/WordLevel vocab (object) or Unigram vocab (list).
function addBytes (model) {
  for (let b = 0; b < 256; b++) {
    const name = '<0x' + b.toString(16).toUpperCase().padStart(2, '0') + '>';
    if (Array.isArray(model.vocab))
      model.vocab.push([name, -20.0]);
    else if (!(name in model.vocab))
      model.vocab[name] = Object.keys(model.vocab).length;
  }
}

function nextId (model) {
  return Array.isArray(model.vocab) ? model.vocab.length
    : Math.max(...Object.values(model.vocab)) + 1;
}

function base (model) {
  return { version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: null, post_processor: null, decoder: null, model };
}

// Qwen2's and Qwen3's split regex (their tokenizer.json): as Llama 3's but single digits.
const ONIG_QWEN2 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// Phi-3's added tokens after Llama 2's 32,000 pieces (Phi-3-mini's tokenizer.json): the chat
// markers and placeholders strip the whitespace on their right.
const PHI3_ADDED = [[32000, '<|endoftext|>', false], [32001, '<|assistant|>', true],
  [32002, '<|placeholder1|>', true], [32003, '<|placeholder2|>', true],
  [32004, '<|placeholder3|>', true], [32005, '<|placeholder4|>', true],
  [32006, '<|system|>', true], [32007, '<|end|>', true], [32008, '<|placeholder5|>', true],
  [32009, '<|placeholder6|>', true], [32010, '<|user|>', true]];

// Phi-3's tokenizer.json in its shape: the Llama 2 SentencePiece BPE of LLAMA_SPM (a path) with
// Phi-3's added tokens.
function phi3FromLlama (llamaSpm) {
  const j = JSON.parse(fs.readFileSync(llamaSpm, 'utf8'));
  for (const [id, content, rstrip] of PHI3_ADDED)
    j.added_tokens.push(added(id, content, { special: true, rstrip }));
  return j;
}

const ONIG_LLAMA3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function synthetic (tk, train, tmp) {
  const out = {};

  // Unigram with byte fallback, NFKC + regex Replace, Metaspace (first), added tokens.
  {
    const m = trained(tk, tk.Unigram, train, tmp).model;
    m.vocab.unshift(['<unk>', 0.0]);
    m.unk_id = 0;
    addBytes(m);
    m.byte_fallback = true;
    const j = base(m);
    const n = nextId(m);
    j.added_tokens = [added(0, '<unk>', { special: true }),
      added(n, '<mask>', { special: true, lstrip: true }),
      added(n + 1, '[SEP]', { special: true, rstrip: true })];
    j.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKC' },
      { type: 'Replace', pattern: { Regex: '\\s{2,}' }, content: ' ' }] };
    j.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true };
    j.decoder = { type: 'Sequence', decoders: [{ type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'first', split: true },
      { type: 'ByteFallback' }, { type: 'Fuse' }] };
    out['unigram-metaspace-first'] = j;
    const k = JSON.parse(JSON.stringify(j));
    k.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false };
    k.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] };
    k.decoder = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: false };
    out['unigram-metaspace-always'] = k;
    const l = JSON.parse(JSON.stringify(j));
    l.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' },
      { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'never', split: true }] };
    l.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'Strip', strip_left: true, strip_right: true }] };
    out['unigram-metaspace-never'] = l;
  }

  // WordLevel: lower-casing, digits one by one, punctuation, added tokens with every option.
  {
    const m = wordLevel(tk, train, tmp);
    const j = base(m);
    const n = nextId(m);
    j.added_tokens = [added(n, '<lstrip>', { special: true, lstrip: true }),
      added(n + 1, '<rstrip>', { special: true, rstrip: true }),
      added(n + 2, 'word', { single_word: true }),
      added(n + 3, 'the', { normalized: true, single_word: true }),
      added(n + 4, 'Good Morning', { normalized: true }),
      added(n + 5, 'hello', { normalized: true }),
      added(n + 6, '<both>', { special: true, lstrip: true, rstrip: true }),
      added(n + 7, '<both> x', { special: true })];
    j.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Lowercase' }] };
    j.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' },
      { type: 'Punctuation', behavior: 'Isolated' }, { type: 'Digits', individual_digits: true }] };
    j.post_processor = { type: 'BertProcessing', sep: ['[SEP]', n + 1], cls: ['[CLS]', n] };
    out['wordlevel-digits-punctuation'] = j;
    const k = JSON.parse(JSON.stringify(j));
    k.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' },
      { type: 'Punctuation', behavior: 'Contiguous' }, { type: 'Digits', individual_digits: false }] };
    k.post_processor = { type: 'RobertaProcessing', sep: ['</s>', n + 1], cls: ['<s>', n],
      trim_offsets: true, add_prefix_space: false };
    out['wordlevel-whitespace-roberta'] = k;
  }

  // Oniguruma's regex semantics in Split patterns: (?m) is dot-all, ^ and $ are line anchors,
  // \h is a hex digit, \w and \b are Unicode (marks included), \uHHHH, \p{^X}.
  {
    const m = wordLevel(tk, train, tmp);
    const j = base(m);
    j.pre_tokenizer = { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: '(?m:\\w.\\w)' }, behavior: 'Isolated', invert: false },
      { type: 'Split', pattern: { Regex: '\\s+$|^\\p{Lu}' }, behavior: 'Isolated', invert: false },
      { type: 'Split', pattern: { Regex: '\\h+' }, behavior: 'MergedWithNext', invert: false },
      { type: 'Split', pattern: { Regex: '[\\s\\d]' }, behavior: 'MergedWithPrevious', invert: false },
      { type: 'Split', pattern: { Regex: '\\bx|\\Bq' }, behavior: 'Isolated', invert: false },
      { type: 'Split', pattern: { Regex: '\\p{^L}+' }, behavior: 'Contiguous', invert: false },
      { type: 'Split', pattern: { Regex: '\\u00e9|\\W\\w' }, behavior: 'Removed', invert: false }] };
    out['wordlevel-onig-regex'] = j;
  }

  // WordPiece with BertNormalizer variants and a pair template.
  {
    const m = trained(tk, tk.WordPiece, train, tmp).model;
    const j = base(m);
    const ids = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => m.vocab[t]);
    if (ids.some((x) => x === undefined)) {
      let n = nextId(m);
      for (const t of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'])
        if (!(t in m.vocab))
          m.vocab[t] = n++;
    }
    const v = m.vocab;
    j.added_tokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => added(v[t], t, { special: true }));
    j.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: false, lowercase: false };
    j.pre_tokenizer = { type: 'BertPreTokenizer' };
    j.post_processor = { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [v['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [v['[SEP]']], tokens: ['[SEP]'] } } };
    j.decoder = { type: 'WordPiece', prefix: '##', cleanup: true };
    m.max_input_chars_per_word = 12;
    out['wordpiece-bert-cased'] = j;
  }

  // BPE: Split with each behaviour and invert, prefix/suffix, byte fallback, fuse_unk.
  {
    const m = trained(tk, tk.BPE, train, tmp).model;
    m.unk_token = '<unk>';
    if (!('<unk>' in m.vocab))
      m.vocab['<unk>'] = nextId(m);
    m.fuse_unk = true;
    const j = base(m);
    j.pre_tokenizer = { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: '\\s+' }, behavior: 'MergedWithNext', invert: false },
      { type: 'Split', pattern: { String: '-' }, behavior: 'MergedWithPrevious', invert: false },
      { type: 'Split', pattern: { Regex: '\\p{P}+' }, behavior: 'Isolated', invert: false },
      { type: 'Split', pattern: { Regex: '[\\p{L}\\p{M}]+' }, behavior: 'Contiguous', invert: true },
      { type: 'Split', pattern: { Regex: '\\s' }, behavior: 'Removed', invert: false }] };
    j.decoder = { type: 'Fuse' };
    out['bpe-split-behaviors'] = j;
    const k = JSON.parse(JSON.stringify(j));
    addBytes(k.model);
    k.model.byte_fallback = true;
    k.model.fuse_unk = false;
    k.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'CharDelimiterSplit', delimiter: ' ' },
      { type: 'Split', pattern: { Regex: '\\d+' }, behavior: 'Isolated', invert: true },
      { type: 'Split', pattern: { Regex: '$' }, behavior: 'Isolated', invert: false }] };
    k.normalizer = { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '\u2581' },
      { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' }] };
    k.decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
      { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
    out['bpe-byte-fallback'] = k;
  }

  // BPE with continuing_subword_prefix / end_of_word_suffix (trained, then renamed).
  {
    const t = new tk.Tokenizer(tk.BPE.empty());
    t.setPreTokenizer(tk.whitespaceSplitPreTokenizer());
    t.train([train]);
    const file = path.join(tmp, 'trained.json');
    t.save(file);
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    j.model.unk_token = null;
    j.normalizer = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: true, lowercase: false };
    j.decoder = { type: 'BPEDecoder', suffix: '</w>' };
    out['bpe-whitespace-nounk'] = j;
  }

  // Byte-level BPE with the Llama 3 split regex, ignore_merges and a BOS template.
  {
    const m = trained(tk, tk.BPE, train, tmp, tk.byteLevelPreTokenizer(false, true)).model;
    m.ignore_merges = true;
    const j = base(m);
    const n = nextId(m);
    j.added_tokens = [added(n, '<|begin_of_text|>', { special: true }),
      added(n + 1, '<|end_of_text|>', { special: true }),
      added(n + 2, ' ünïcode', { normalized: true })];
    j.normalizer = { type: 'NFC' };
    j.pre_tokenizer = { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: ONIG_LLAMA3 }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] };
    j.post_processor = { type: 'Sequence', processors: [
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
      { type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '<|begin_of_text|>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [n], tokens: ['<|begin_of_text|>'] } } }] };
    j.decoder = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
    out['bpe-bytelevel-llama3-split'] = j;
    const k = JSON.parse(JSON.stringify(j));
    k.model.ignore_merges = false;
    k.normalizer = null;
    k.pre_tokenizer = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
    k.post_processor = { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true };
    out['bpe-bytelevel-prefix-space'] = k;
  }

  // Qwen2/Qwen3's shape: byte-level BPE (trained here: their 151,643-entry vocabulary is not in
  // the project) behind NFC, the Qwen split regex and ByteLevel without its own regex; no BOS;
  // <|endoftext|>, <|im_start|>, <|im_end|> special, Qwen3's <think> and </think> not.
  {
    const m = trained(tk, tk.BPE, train, tmp, tk.byteLevelPreTokenizer(false, true)).model;
    m.ignore_merges = false;
    const j = base(m);
    const n = nextId(m);
    j.added_tokens = [added(n, '<|endoftext|>', { special: true }),
      added(n + 1, '<|im_start|>', { special: true }), added(n + 2, '<|im_end|>', { special: true }),
      added(n + 3, '<think>'), added(n + 4, '</think>')];
    j.normalizer = { type: 'NFC' };
    j.pre_tokenizer = { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: ONIG_QWEN2 }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }] };
    j.post_processor = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
    j.decoder = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
    out['qwen-bytelevel-split'] = j;
  }
  return out;
}

function encodeAll (tokenizer, texts) {
  const rows = [];
  const jobs = texts.map(async (text, i) => {
    const withSpecial = await tokenizer.encode(text, null, { addSpecialTokens: true });
    const plain = await tokenizer.encode(text, null, { addSpecialTokens: false });
    const row = { ids: withSpecial.getIds(), plain: plain.getIds() };
    row.text = await tokenizer.decode(row.plain, false);
    if (i % 7 === 0) {
      const pair = await tokenizer.encode(text, texts[(i + 1) % texts.length], { addSpecialTokens: true });
      row.pair_ids = pair.getIds();
      row.pair_types = pair.getTypeIds();
    }
    rows[i] = JSON.stringify(row);
  });
  return Promise.all(jobs).then(() => rows);
}

async function main () {
  const [workdir, corpusPath, trainPath, outDir, ...named] = process.argv.slice(2);
  if (!outDir) {
    process.stderr.write('usage: node hf-peer.js WORKDIR CORPUS.jsonl TRAIN.txt OUT_DIR NAME=TOKENIZER.json...\n');
    process.exit(2);
  }
  const namedOnly = named.includes('--named-only');
  const tk = install(workdir);
  fs.mkdirSync(outDir, { recursive: true });
  const files = {};
  const made = namedOnly ? {} : synthetic(tk, trainPath, outDir);
  for (const [name, json] of Object.entries(made)) {
    fs.mkdirSync(path.join(outDir, name), { recursive: true });
    files[name] = path.join(outDir, name, 'tokenizer.json');
    fs.writeFileSync(files[name], JSON.stringify(json));
  }
  for (const arg of named.filter((a) => a !== '--named-only')) {
    const eq = arg.indexOf('=');
    files[arg.slice(0, eq)] = arg.slice(eq + 1);
  }
  if (files['llama-spm'] && !namedOnly) {
    fs.mkdirSync(path.join(outDir, 'phi3-llama-spm'), { recursive: true });
    files['phi3-llama-spm'] = path.join(outDir, 'phi3-llama-spm', 'tokenizer.json');
    fs.writeFileSync(files['phi3-llama-spm'], JSON.stringify(phi3FromLlama(files['llama-spm'])));
  }
  const texts = fs.readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
  for (const [name, file] of Object.entries(files)) {
    const tokenizer = tk.Tokenizer.fromFile(file);
    const rows = await encodeAll(tokenizer, texts);
    fs.writeFileSync(path.join(outDir, name + '.jsonl'), rows.join('\n') + '\n');
  }
  fs.writeFileSync(path.join(outDir, 'names.txt'),
    Object.entries(files).map(([name, file]) => name + '\t' + file).join('\n') + '\n');
}

main().catch((e) => { process.stderr.write(String(e.stack || e) + '\n'); process.exit(1); });
