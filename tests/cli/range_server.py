"""Test helper: an HTTP(S) server on 127.0.0.1 that serves files with range requests (206 and
Content-Range, ETag, If-Range), plus one path prefix per fault the remote reader must survive.

Usage: range_server.py ROOT LOG PORT_FILE [--token T] [--cert CERT --key KEY]
It binds an ephemeral port on 127.0.0.1, writes the port number to PORT_FILE and serves until
killed. Every request becomes one JSON line in LOG: method, path, range, status, bytes sent, and
whether an Authorization header came with it.

Paths (NAME is a file under ROOT):
  /files/NAME             ranges, ETag, If-Range
  /norange/NAME           ignores Range: 200 with the whole file
  /truncate/NAME          206 whose body stops halfway through its Content-Length
  /shortrange/NAME        206 whose Content-Range and Content-Length agree but cover less than asked
  /changing/NAME          the first request sees the file; later ones a changed copy with a new ETag
  /flaky/NAME             every first request for a range is answered 503
  /status/CODE/NAME       always answers CODE
  /stall/NAME             sends nothing for 60 s
  /together/NAME          ranges past the first byte wait (up to 60 s) until another such request
                          has been in progress at the same time, then are served as /files/NAME;
                          the log's "together" says whether one was: whether the client makes
                          requests side by side
  /redirect/NAME          302 to http://localhost:PORT/files/NAME (another host name)
  /loop/NAME              302 to itself, for ever
  /OWNER/REPO/resolve/REV/PATH   the Hub layout, from ROOT/hf/OWNER/REPO/REV/PATH; OWNER "gated"
                          needs "Authorization: Bearer T" and redirects to /cdn/..., which must
                          not receive it (403 if it does)
A request line with an absolute URL (a proxy request) is served by its path.
"""
import http.server
import json
import os
import re
import ssl
import sys
import threading
import time
from urllib.parse import urlsplit

ROOT, LOG, PORT_FILE = sys.argv[1:4]
OPTS = dict(zip(sys.argv[4::2], sys.argv[5::2]))
TOKEN = OPTS.get("--token", "")
LOCK = threading.Lock()
SEEN = set()  # (prefix, path, range) already answered, for /flaky and /changing
TOGETHER = threading.Condition()
together_active = []  # one flag per /together request past the first byte now in progress:
                      # whether another has been in progress beside it


def log(entry):
    with LOCK, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path
        proxied = path.startswith("http://")
        if proxied:
            path = urlsplit(path).path
        self.entry = {"method": "GET", "path": path, "range": self.headers.get("Range"),
                      "if_range": self.headers.get("If-Range"), "auth": "Authorization" in self.headers,
                      "host": self.headers.get("Host"), "proxied": proxied, "status": 0, "sent": 0}
        self.route(path)

    def reply(self, status, body=b"", headers=()):
        # Logged before the answer goes out, so the log is complete once the client has it.
        self.entry.update(status=status, sent=len(body))
        log(self.entry)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if not any(k == "Content-Length" for k, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def route(self, path):
        m = re.match(r"^/([^/]+)/([^/]+)/resolve/([^/]+)/(.+)$", path)
        if m and m.group(1) != "cdn":
            owner, repo, rev, name = m.groups()
            if owner == "gated":
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self.reply(401, b"unauthorized")
                port = self.server.server_address[1]
                scheme = "https" if "--cert" in OPTS else "http"
                return self.reply(302, headers=[("Location", f"{scheme}://localhost:{port}/cdn{path}")])
            return self.serve(os.path.join(ROOT, "hf", owner, repo, rev, name))
        if path.startswith("/cdn/"):
            if "Authorization" in self.headers:
                return self.reply(403, b"token leaked to another host")
            owner, repo, _, rev, name = path[len("/cdn/"):].split("/", 4)
            return self.serve(os.path.join(ROOT, "hf", owner, repo, rev, name))
        m = re.match(r"^/([a-z]+)/(.+)$", path)
        if not m:
            return self.reply(404, b"not found")
        mode, rest = m.groups()
        if mode == "status":
            code, _, _ = rest.partition("/")
            return self.reply(int(code), b"status")
        if mode == "stall":
            log(self.entry)
            time.sleep(60)
            return
        if mode == "loop":
            return self.reply(302, headers=[("Location", path)])
        if mode == "redirect":
            port = self.server.server_address[1]
            return self.reply(302, headers=[("Location", f"http://localhost:{port}/files/{rest}")])
        if mode == "together" and not (self.headers.get("Range") or "bytes=0-").startswith("bytes=0-"):
            return self.serve_together(os.path.join(ROOT, rest))
        if mode not in ("files", "norange", "truncate", "shortrange", "changing", "flaky", "together"):
            return self.reply(404, b"not found")
        key = (mode, rest, self.headers.get("Range"))
        with LOCK:
            first = key not in SEEN if mode == "flaky" else not any(k[0] == mode and k[1] == rest for k in SEEN)
            SEEN.add(key)
        if mode == "flaky" and first:
            return self.reply(503, b"try again")
        self.serve(os.path.join(ROOT, rest), mode, changed=(mode == "changing" and not first))

    def serve_together(self, file):
        # Meeting is recorded when the second request arrives, not read from a count later: the
        # first, once served, may leave before the second's thread wakes (a loaded machine).
        met = [False]
        with TOGETHER:
            for other in together_active:
                other[0] = met[0] = True
            together_active.append(met)
            TOGETHER.notify_all()
            self.entry["together"] = TOGETHER.wait_for(lambda: met[0], timeout=60)
        try:
            self.serve(file)
        finally:
            with TOGETHER:
                together_active.remove(met)

    def serve(self, file, mode="files", changed=False):
        if not os.path.isfile(file):
            return self.reply(404, b"not found")
        data = open(file, "rb").read()
        etag = '"v1-%d"' % len(data)
        if changed:  # the same size, other bytes: only the version tells them apart
            data = bytes(b ^ 0x5A for b in data)
            etag = '"v2-%d"' % len(data)
        headers = [("ETag", etag), ("Accept-Ranges", "bytes")]
        want = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        m = re.match(r"^bytes=(\d+)-(\d*)$", want or "")
        if mode == "norange" or not m or (if_range is not None and if_range != etag):
            return self.reply(200, data, headers)
        first = int(m.group(1))
        last = min(int(m.group(2)) if m.group(2) else len(data) - 1, len(data) - 1)
        if first >= len(data):
            return self.reply(416, b"", headers + [("Content-Range", f"bytes */{len(data)}")])
        body = data[first:last + 1]
        if mode == "shortrange" and len(body) > 1:
            last = first + len(body) // 2 - 1
            body = body[:len(body) // 2]
        headers.append(("Content-Range", f"bytes {first}-{last}/{len(data)}"))
        if mode == "truncate":
            half = body[:len(body) // 2]
            self.entry.update(status=206, sent=len(half))
            log(self.entry)
            self.send_response(206)
            for k, v in headers + [("Content-Length", str(len(body)))]:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(half)
            self.close_connection = True
            return
        self.reply(206, body, headers)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hangs up (as onnxq does on a 200) is no error here


server = Server(("127.0.0.1", 0), Handler)
if "--cert" in OPTS:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(OPTS["--cert"], OPTS["--key"])
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
