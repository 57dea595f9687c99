#!/usr/bin/python3
"""A Hugging Face hub on the loopback interface, for the download tests (tests/README.md, "The
hub client").

It serves model repositories from folders, with the hub's endpoints, headers and behaviours as
huggingface_hub and @huggingface/hub rely on them:

  GET  /api/models/{id}/revision/{rev}    sha, siblings (with ?blobs=true: sizes, blob ids, lfs)
  GET  /api/models/{id}/tree/{rev}[/dir]  ?recursive=true: every file and folder (JS listFiles)
  POST /api/models/{id}/paths-info/{rev}  the entries of the paths asked for (JS pathsInfo)
  HEAD/GET /{id}/resolve/{rev}/{file}     a file kept in git: 200, ETag = its git blob hash,
                                          X-Repo-Commit, Content-Length, Range;
                                          an LFS file: 302 to /cdn/{sha256} (an absolute URL,
                                          as the hub's redirect to its CDN), X-Linked-Etag =
                                          the sha256, X-Linked-Size, X-Repo-Commit
  HEAD/GET /cdn/{sha256}                  the bytes, with Range (206, Content-Range)

Errors carry X-Error-Code as the hub's do: RepoNotFound (401 without a token, 404 with one),
GatedRepo (401 without a token, 403 with a wrong one), RevisionNotFound, EntryNotFound.

Faults for the tests: --drop FILE:BYTES[:TIMES] closes the connection after BYTES bytes of FILE
(TIMES times, default once); --corrupt FILE flips a byte of FILE as sent; --ignore-range answers
every Range request with the whole file; --rate limits file bodies to BYTES per second.

Every request is logged to --log as one JSON line (method, path, range, status, bytes of body
to send, dropped) before its reply is sent, so that a test counts what a client asked for as soon
as the client has its answer. The server listens on 127.0.0.1
only, writes its port to --port-file, and exits when its parent process does.

Run with /usr/bin/python3 (the standard library only).
"""

import argparse
import hashlib
import http.server
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

LFS_SUFFIXES = (".h5", ".safetensors", ".bin", ".msgpack", ".onnx", ".pt", ".pth", ".ckpt",
                ".model", ".spm", ".gguf")
LFS_MIN_BYTES = 10 * 1024 * 1024


def git_blob_oid(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def lfs_pointer(sha256, size):
    return ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
            % (sha256, size)).encode()


class RepoFile:
    def __init__(self, path, data):
        self.path = path
        self.data = data
        self.size = len(data)
        self.lfs = path.endswith(LFS_SUFFIXES) or len(data) >= LFS_MIN_BYTES
        if self.lfs:
            self.sha256 = hashlib.sha256(data).hexdigest()
            self.pointer = lfs_pointer(self.sha256, self.size)
            self.oid = git_blob_oid(self.pointer)
        else:
            self.sha256 = None
            self.pointer = None
            self.oid = git_blob_oid(data)

    def tree_entry(self):
        entry = {"type": "file", "oid": self.oid, "size": self.size, "path": self.path}
        if self.lfs:
            entry["lfs"] = {"oid": self.sha256, "size": self.size,
                            "pointerSize": len(self.pointer)}
        return entry


class Repo:
    def __init__(self, repo_id, folder, commit=None, refs=()):
        self.id = repo_id
        self.files = {}
        for root, _dirs, names in os.walk(folder, followlinks=True):
            for name in names:
                full = os.path.join(root, name)
                rel = os.path.relpath(full, folder).replace(os.sep, "/")
                with open(full, "rb") as f:
                    self.files[rel] = RepoFile(rel, f.read())
        listing = "".join("%s %s\n" % (p, self.files[p].oid) for p in sorted(self.files))
        self.commit = commit or hashlib.sha1(("commit " + repo_id + "\n" + listing)
                                             .encode()).hexdigest()
        self.refs = {"main": self.commit}
        for ref in refs:
            self.refs[ref] = self.commit
        self.gated = False
        self.token = None

    def resolve(self, revision):
        if revision in self.refs:
            return self.refs[revision]
        if len(revision) >= 7 and self.commit.startswith(revision):
            return self.commit
        return None

    def folders(self):
        out = set()
        for path in self.files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                out.add("/".join(parts[:i]))
        return sorted(out)


class Hub:
    def __init__(self, args):
        self.repos = {}
        self.lock = threading.Lock()
        self.log_path = args.log
        self.drops = {}
        for spec in args.drop:
            parts = spec.split(":")
            self.drops[parts[0]] = [int(parts[1]), int(parts[2]) if len(parts) > 2 else 1]
        self.corrupt = set(args.corrupt)
        self.ignore_range = args.ignore_range
        self.rate = args.rate
        self.by_sha = {}

    def add(self, repo):
        self.repos[repo.id] = repo
        for f in repo.files.values():
            if f.lfs:
                self.by_sha[f.sha256] = f

    def log(self, entry):
        with self.lock:
            with open(self.log_path, "a") as out:
                out.write(json.dumps(entry) + "\n")

    def take_drop(self, path):
        with self.lock:
            drop = self.drops.get(path)
            if drop is None or drop[1] <= 0:
                return None
            drop[1] -= 1
            return drop[0]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-hub/1"

    def log_message(self, fmt, *args):
        pass

    @property
    def hub(self):
        return self.server.hub

    def base_url(self):
        host, port = self.server.server_address[:2]
        return "http://%s:%d" % (host, port)

    # ---- replies ----

    def reply(self, status, headers=None, body=b""):
        # logged before it is sent: a client that has the reply finds it in the log
        self.record(status, len(body) if self.command != "HEAD" else 0)
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def reply_json(self, value, status=200, headers=None):
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        self.reply(status, h, json.dumps(value).encode())

    def error(self, status, code, message, headers=None):
        h = {"X-Error-Code": code, "X-Error-Message": message}
        h.update(headers or {})
        self.reply_json({"error": message}, status, h)

    def record(self, status, sent, dropped=False):
        self.hub.log({"method": self.command, "path": self.path,
                      "range": self.headers.get("Range"), "status": status, "bytes": sent,
                      "auth": self.headers.get("Authorization") is not None,
                      "dropped": dropped})

    # ---- routing ----

    def do_HEAD(self):
        self.route()

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def route(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = urllib.parse.parse_qs(url.query)
        if path.startswith("/cdn/"):
            return self.cdn(path[len("/cdn/"):])
        if path.startswith("/api/models/"):
            return self.api(path[len("/api/models/"):], query)
        if "/resolve/" in path:
            repo_id, rest = path[1:].split("/resolve/", 1)
            revision, _, name = rest.partition("/")
            return self.resolve(urllib.parse.unquote(repo_id), urllib.parse.unquote(revision),
                                urllib.parse.unquote(name))
        self.error(404, "NotFound", "no such endpoint")

    def repo_for(self, repo_id, revision):
        """The repository and the commit REVISION names, or None after an error reply."""
        repo = self.hub.repos.get(repo_id)
        auth = self.headers.get("Authorization")
        if repo is None:
            if auth is None:
                self.error(401, "RepoNotFound", "Repository not found")
            else:
                self.error(404, "RepoNotFound", "Repository not found")
            return None, None
        if repo.gated and auth != "Bearer " + repo.token:
            status = 401 if auth is None else 403
            self.error(status, "GatedRepo",
                       "Access to model %s is restricted. You must have access to it and be "
                       "authenticated to access it. Please log in." % repo_id)
            return None, None
        commit = repo.resolve(revision)
        if commit is None:
            self.error(404, "RevisionNotFound", "Invalid rev id: " + revision)
            return None, None
        return repo, commit

    # ---- the API ----

    def api(self, rest, query):
        for verb in ("/revision/", "/tree/", "/paths-info/"):
            if verb in rest:
                repo_id, tail = rest.split(verb, 1)
                break
        else:
            return self.error(404, "NotFound", "no such endpoint")
        repo_id = urllib.parse.unquote(repo_id)
        if verb == "/tree/":
            revision, _, folder = tail.partition("/")
        else:
            revision, folder = tail, ""
        repo, commit = self.repo_for(repo_id, urllib.parse.unquote(revision))
        if repo is None:
            return
        if verb == "/revision/":
            return self.reply_json(self.model_info(repo, commit, query))
        if verb == "/tree/":
            recursive = query.get("recursive", ["false"])[0] == "true"
            return self.reply_json(self.tree(repo, urllib.parse.unquote(folder), recursive))
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        out = []
        for p in body.get("paths", []):
            f = repo.files.get(p)
            if f is not None:
                entry = f.tree_entry()
                if body.get("expand"):
                    entry["lastCommit"] = {"id": commit, "title": "Upload",
                                           "date": "2024-01-01T00:00:00.000Z"}
                out.append(entry)
        self.reply_json(out)

    def model_info(self, repo, commit, query):
        blobs = query.get("blobs", ["false"])[0] == "true"
        siblings = []
        for p in sorted(repo.files):
            s = {"rfilename": p}
            if blobs:
                f = repo.files[p]
                s["blobId"] = f.oid
                s["size"] = f.size
                if f.lfs:
                    s["lfs"] = {"sha256": f.sha256, "size": f.size,
                                "pointerSize": len(f.pointer)}
            siblings.append(s)
        return {"_id": hashlib.md5(repo.id.encode()).hexdigest()[:24], "id": repo.id,
                "modelId": repo.id, "sha": commit, "private": False,
                "gated": "manual" if repo.gated else False, "disabled": False,
                "lastModified": "2024-01-01T00:00:00.000Z", "likes": 0, "downloads": 0,
                "tags": [], "siblings": siblings}

    def tree(self, repo, folder, recursive):
        prefix = folder + "/" if folder else ""
        entries = []
        for d in repo.folders():
            if d.startswith(prefix) and (recursive or "/" not in d[len(prefix):]):
                entries.append({"type": "directory", "oid": git_blob_oid(d.encode()),
                                "size": 0, "path": d})
        for p in sorted(repo.files):
            if p.startswith(prefix) and (recursive or "/" not in p[len(prefix):]):
                entries.append(repo.files[p].tree_entry())
        return entries

    # ---- files ----

    def resolve(self, repo_id, revision, name):
        repo, commit = self.repo_for(repo_id, revision)
        if repo is None:
            return
        f = repo.files.get(name)
        if f is None:
            return self.error(404, "EntryNotFound", "Entry not found",
                              {"X-Repo-Commit": commit})
        if f.lfs:
            location = "%s/cdn/%s?filename=%s" % (self.base_url(), f.sha256,
                                                  urllib.parse.quote(name))
            body = ("Found. Redirecting to " + location).encode()
            return self.reply(302, {"Location": location, "X-Repo-Commit": commit,
                                    "X-Linked-Etag": '"%s"' % f.sha256,
                                    "X-Linked-Size": str(f.size), "ETag": '"%s"' % f.oid,
                                    "Content-Type": "text/plain; charset=utf-8"}, body)
        self.send_file(f, {"ETag": '"%s"' % f.oid, "X-Repo-Commit": commit})

    def cdn(self, rest):
        sha = rest.split("?", 1)[0]
        f = self.hub.by_sha.get(sha)
        if f is None:
            return self.error(404, "NotFound", "no such object")
        self.send_file(f, {"ETag": '"%s"' % f.sha256})

    def send_file(self, f, headers):
        data = f.data
        if f.path in self.hub.corrupt:
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]
        start, end = 0, len(data)
        status = 200
        wanted = self.headers.get("Range")
        if wanted and not self.hub.ignore_range and wanted.startswith("bytes="):
            first, _, last = wanted[len("bytes="):].partition("-")
            start = int(first)
            end = int(last) + 1 if last else len(data)
            if start >= len(data):
                return self.reply(416, {"Content-Range": "bytes */%d" % len(data)})
            end = min(end, len(data))
            status = 206
        h = dict(headers)
        h.update({"Accept-Ranges": "bytes", "Content-Type": "application/octet-stream",
                  "Content-Length": str(end - start)})
        if status == 206:
            h["Content-Range"] = "bytes %d-%d/%d" % (start, end - 1, len(data))
        drop = self.hub.take_drop(f.path) if self.command == "GET" else None
        body = data[start:end] if self.command == "GET" else b""
        dropped = drop is not None and drop < len(body)
        if dropped:
            body = body[:drop]
        # logged before it is sent: a client that has the reply finds it in the log
        self.record(status, len(body), dropped=dropped)
        self.send_response(status)
        for name, value in h.items():
            self.send_header(name, value)
        self.end_headers()
        self.send_body(body)
        if dropped:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def send_body(self, body):
        """Sends BODY at the configured rate; returns the bytes sent."""
        chunk = 65536
        sent = 0
        began = time.monotonic()
        try:
            while sent < len(body):
                piece = body[sent:sent + chunk]
                self.wfile.write(piece)
                self.wfile.flush()
                sent += len(piece)
                if self.hub.rate:
                    due = began + sent / self.hub.rate
                    pause = due - time.monotonic()
                    if pause > 0:
                        time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        return sent


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def watch_parent(parent):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--repo", action="append", default=[], metavar="ID=FOLDER")
    parser.add_argument("--commit", action="append", default=[], metavar="ID=SHA")
    parser.add_argument("--ref", action="append", default=[], metavar="ID=NAME")
    parser.add_argument("--gated", action="append", default=[], metavar="ID=TOKEN")
    parser.add_argument("--drop", action="append", default=[], metavar="FILE:BYTES[:TIMES]")
    parser.add_argument("--corrupt", action="append", default=[], metavar="FILE")
    parser.add_argument("--ignore-range", action="store_true")
    parser.add_argument("--rate", type=float, default=0, metavar="BYTES_PER_SECOND")
    args = parser.parse_args()

    hub = Hub(args)
    commits = dict(c.split("=", 1) for c in args.commit)
    refs = {}
    for r in args.ref:
        repo_id, name = r.split("=", 1)
        refs.setdefault(repo_id, []).append(name)
    for spec in args.repo:
        repo_id, folder = spec.split("=", 1)
        hub.add(Repo(repo_id, folder, commits.get(repo_id), refs.get(repo_id, ())))
    for spec in args.gated:
        repo_id, token = spec.split("=", 1)
        hub.repos[repo_id].gated = True
        hub.repos[repo_id].token = token

    server = Server(("127.0.0.1", 0), Handler)
    server.hub = hub
    open(args.log, "a").close()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as out:
        out.write("%d\n" % server.server_address[1])
    os.rename(tmp, args.port_file)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
