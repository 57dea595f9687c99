// hub-peer.js — Hugging Face's own JavaScript hub client (@huggingface/hub, the npm package)
// downloading from the fake hub into a cache folder: the peer of attnscope's downloads
// (tests/README.md, "The hub client").
//
//   node hub-peer.js WORKDIR snapshot ENDPOINT CACHE REPO [REVISION]
//       snapshotDownload: the repository's files at REVISION (default main), refs written
//   node hub-peer.js WORKDIR files ENDPOINT CACHE REPO REVISION FILE...
//       downloadFileToCacheDir for each FILE at REVISION
//
// The package is installed into WORKDIR with npm on first use (version 2, Node.js 18 or newer);
// exit status 3 when npm cannot install it (no registry), 1 on any other failure. Prints the
// folder the download ends in.
"use strict";

const { execFileSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const PACKAGE = "@huggingface/hub";
const VERSION = "2";

function install(workdir) {
  const marker = path.join(workdir, "node_modules", "@huggingface", "hub", "package.json");
  if (fs.existsSync(marker)) return;
  fs.mkdirSync(workdir, { recursive: true });
  if (!fs.existsSync(path.join(workdir, "package.json")))
    fs.writeFileSync(path.join(workdir, "package.json"), '{"name":"hub-peer","private":true}\n');
  try {
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error",
                         `${PACKAGE}@${VERSION}`], { cwd: workdir, stdio: ["ignore", "ignore", "pipe"] });
  } catch (e) {
    process.stderr.write(`npm install ${PACKAGE}@${VERSION} failed: ${e.stderr || e.message}\n`);
    process.exit(3);
  }
}

async function main() {
  const [workdir, mode, hubUrl, cacheDir, repo, revision, ...files] = process.argv.slice(2);
  if (!workdir || !["snapshot", "files"].includes(mode) || !hubUrl || !cacheDir || !repo) {
    process.stderr.write("usage: hub-peer.js WORKDIR snapshot|files ENDPOINT CACHE REPO [REVISION] [FILE...]\n");
    process.exit(2);
  }
  install(workdir);
  const hub = require(path.join(workdir, "node_modules", "@huggingface", "hub"));
  // the package logs each file it writes on console.debug: keep stdout for the result
  console.debug = () => {};
  console.info = () => {};
  let result;
  if (mode === "snapshot") {
    result = await hub.snapshotDownload({ repo, revision: revision || "main", hubUrl, cacheDir });
  } else {
    for (const file of files)
      result = await hub.downloadFileToCacheDir({ repo, path: file, revision, hubUrl, cacheDir });
    result = path.dirname(result);
  }
  process.stdout.write(result + "\n");
}

main().catch((e) => {
  process.stderr.write(`hub-peer.js: ${e.stack || e}\n`);
  process.exit(1);
});
