#!/usr/bin/env node
// bench-tokenizer.js — the same measurement as bench-tokenizer.c with Hugging Face's `tokenizers`
// (Rust, Node binding). Usage: node bench-tokenizer.js MODULES_DIR TOKENIZER.json FILE lines|whole REPEAT
// "lines": every line encoded with encode(line) one after the other ("seq"), and all lines at
// once with encodeBatch ("batch", which HF spreads over its thread pool); "whole": the file as
// one text. Prints one JSON object like bench-tokenizer.c's.
'use strict';
const fs = require('fs');
const path = require('path');

async function main () {
  const [modules, tokenizerPath, file, mode, repeatText] = process.argv.slice(2);
  const { Tokenizer } = require(path.join(modules, 'tokenizers'));
  const repeat = parseInt(repeatText, 10);
  const contents = fs.readFileSync(file, 'utf8');
  const texts = mode === 'lines' ? contents.split('\n').filter((l) => l.length > 0) : [contents];
  const t0 = process.hrtime.bigint();
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const count = (encodings) => {
    let n = 0, sum = 0;
    for (const e of encodings) {
      const ids = e.getIds();
      n += ids.length;
      for (const id of ids) sum += id;
    }
    return [n, sum];
  };
  const seq = async () => {
    const out = [];
    for (const t of texts) out.push(await tokenizer.encode(t, null, { addSpecialTokens: true }));
    return out;
  };
  const batch = () => tokenizer.encodeBatch(texts, { addSpecialTokens: true });
  const time = async (f) => {
    let result = await f(); // warm-up
    const ms = [];
    for (let r = 0; r < repeat; r++) {
      const start = process.hrtime.bigint();
      result = await f();
      ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    ms.sort((a, b) => a - b);
    const [n, sum] = count(result);
    return { median_ms: ms[Math.floor(repeat / 2)], min_ms: ms[0], ids: n, id_sum: sum };
  };
  const out = { load_ms: loadMs, texts: texts.length, seq: await time(seq) };
  if (mode === 'lines') out.batch = await time(batch);
  console.log(JSON.stringify(out));
}
main().catch((e) => { console.error(e); process.exit(1); });
