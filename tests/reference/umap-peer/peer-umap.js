#!/usr/bin/env node
// peer-umap.js — the npm package umap-js (the PAIR-code JavaScript port of umap-learn) on a
// matrix, for the UMAP comparison test and benchmark.
//
// Usage: node peer-umap.js WORKDIR IN.f32 N D OUT.f32 [--neighbors K] [--min-dist M]
//            [--metric euclidean|cosine] [--epochs E] [--seed S | --seeds S1,S2,...]
// Exit status: 0 done, 3 the npm install failed (no registry?), 2 usage, anything else: a real
// failure. Installs umap-js@1.4.0 with npm into WORKDIR (once; a second run finds it there),
// reads IN.f32 (N·D little-endian float32, row-major), runs UMAP.fit with the given options
// (umap-js's own defaults otherwise: 15 neighbours, min_dist 0.1, spread 1, learning rate 1,
// 5 negative samples), writes the embedding [N][2] as float32 to OUT.f32 and prints one JSON
// line {"seconds": time of fit() alone, "epochs": the epochs run, "version": "1.4.0"}.
// umap-js draws from Math.random unless given a generator; --seed gives it mulberry32 seeded with
// S, so every run is reproducible. --seeds fits once per seed in this one process (a fresh UMAP
// each time, the same as one process per seed) and writes the embeddings one after the other,
// [seeds][N][2]; "seconds" is then the list of the fits' times. Its neighbour search is always
// approximate (random-projection forest + NN-descent) and its initialisation is always random
// uniform in [−10, 10], not rescaled.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const PACKAGE = 'umap-js@1.4.0';

function usage () {
  process.stderr.write('usage: node peer-umap.js WORKDIR IN.f32 N D OUT.f32 [--neighbors K] ' +
    '[--min-dist M] [--metric euclidean|cosine] [--epochs E] [--seed S | --seeds S1,S2,...]\n');
  process.exit(2);
}

// mulberry32: a small seeded generator of floats in [0, 1).
function mulberry32 (seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function install (workdir) {
  const marker = path.join(workdir, 'node_modules', 'umap-js', 'package.json');
  if (fs.existsSync(marker)) return;
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefix', workdir,
      PACKAGE], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (e) {
    process.stderr.write(`npm install ${PACKAGE} failed: ${e.message}\n`);
    process.exit(3);
  }
}

function main () {
  const args = process.argv.slice(2);
  if (args.length < 5) usage();
  const [workdir, input, nText, dText, output] = args;
  const n = parseInt(nText, 10);
  const d = parseInt(dText, 10);
  const params = { nNeighbors: 15, minDist: 0.1 };
  let metric = 'euclidean';
  let seeds = null;
  for (let i = 5; i < args.length; i += 2) {
    const value = args[i + 1];
    if (value === undefined) usage();
    switch (args[i]) {
      case '--neighbors': params.nNeighbors = parseInt(value, 10); break;
      case '--min-dist': params.minDist = parseFloat(value); break;
      case '--epochs': params.nEpochs = parseInt(value, 10); break;
      case '--seed': seeds = [parseInt(value, 10)]; break;
      case '--seeds': seeds = value.split(',').map((v) => parseInt(v, 10)); break;
      case '--metric': metric = value; break;
      default: usage();
    }
  }
  install(workdir);
  const umapJs = require(path.join(workdir, 'node_modules', 'umap-js'));
  if (metric === 'cosine') params.distanceFn = umapJs.cosine;
  else if (metric !== 'euclidean') usage();

  const bytes = fs.readFileSync(input);
  if (bytes.length !== n * d * 4) {
    process.stderr.write(`${input}: ${bytes.length} bytes, expected ${n}·${d}·4\n`);
    process.exit(1);
  }
  const flat = new Float32Array(bytes.buffer, bytes.byteOffset, n * d);
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(Array.from(flat.subarray(i * d, (i + 1) * d)));

  const runs = seeds === null ? [null] : seeds;
  if (runs.some((s) => Number.isNaN(s))) usage();
  const out = new Float32Array(runs.length * n * 2);
  const seconds = [];
  let epochs = 0;
  runs.forEach((seed, r) => {
    const umap = new umapJs.UMAP(seed === null ? params
      : Object.assign({}, params, { random: mulberry32(seed) }));
    const t0 = process.hrtime.bigint();
    const embedding = umap.fit(rows);
    seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
    epochs = umap.getNEpochs();
    for (let i = 0; i < n; i++) {
      out[(r * n + i) * 2] = embedding[i][0];
      out[(r * n + i) * 2 + 1] = embedding[i][1];
    }
  });
  fs.writeFileSync(output, Buffer.from(out.buffer));
  const reported = seeds !== null && seeds.length > 1 ? seconds : seconds[0];
  process.stdout.write(JSON.stringify({ seconds: reported, epochs, version: '1.4.0' }) + '\n');
}

main();
