"""Plumbing shared by the scripted model-API mocks (`mock_anthropic.py`, `mock_gemini.py`,
`mock_openai.py`): the command line, the JSONL request log, replies, and the step a
`--tool-calls` script is at.

`run-in-netns.sh` starts a mock as `python3 tests/harness/mock_<api>.py …`, so this module
is importable from the mock's own directory. Stdlib only.
"""

import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()

# What `next_answer` gives a request besides the index of a scripted call: the final text,
# the one unscripted shell call, or a short text for a side query (titles, routing, summaries).
FINAL = "final"
SHELL = "shell"
AUX = "aux"


def next_answer(server, results, body, offers_shell):
    """What a request that carries the tool `results` gets.

    With a `--tool-calls` script: the index of the call to make next when the request offers
    tools, FINAL once every call has its result, else AUX. Without one: FINAL once the request
    carries a result or `--max-tool-calls` calls were made, SHELL when `offers_shell`, else AUX.
    """
    script = server.script
    if script is not None:
        step = len(results)
        if step >= len(script):
            return FINAL
        return step if body.get("tools") else AUX
    if results or server.tool_calls >= server.opts.max_tool_calls:
        return FINAL
    return SHELL if offers_shell else AUX


def sse(events):
    """Encodes `events` as a Server-Sent Events stream, each named by its `type`."""
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


class MockHandler(BaseHTTPRequestHandler):
    """A request handler that logs every request as a JSON line and answers in JSON."""

    protocol_version = "HTTP/1.1"
    # Headers sent with every reply, besides the content type and length.
    extra_headers = ()
    # The body of a 404 answer, in the API's own error shape.
    not_found_body = b'{"error":{"message":"mock: not found"}}'

    def log_message(self, fmt, *args):  # keep stderr quiet; the JSONL log is the record
        pass

    def record(self, entry):
        with LOG_LOCK:
            with open(self.server.opts.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(dict(entry, time=round(time.time(), 3))) + "\n")

    def reply(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        for name, value in self.extra_headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def not_found(self, method, body=None):
        """Logs the request (with its body, when it has one) and answers 404."""
        entry = {"method": method, "path": self.path, "answer": "404"}
        if body is not None:
            entry["body"] = body
        self.record(entry)
        self.reply(404, "application/json", self.not_found_body)

    def read_body(self):
        """Reads the request body as JSON; a body that is not JSON is kept as `unparsed` text."""
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"unparsed": raw.decode("utf-8", "replace")}

    def route(self):
        """The request path without its query string."""
        return self.path.split("?", 1)[0]


def main(doc, handler, command_help, tool_calls_help="the list of tool calls to script, in order"):
    """Parses the mock's command line, listens on loopback, writes the port to `--ready-file`
    once listening, and serves until interrupted."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--command", default="", help=command_help)
    parser.add_argument("--tool-calls", help="a JSON file: " + tool_calls_help)
    parser.add_argument("--log", required=True, help="JSONL file that receives one line per request")
    parser.add_argument("--ready-file", required=True, help="written with the port once listening")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-tool-calls", type=int, default=3,
                        help="after this many scripted tool calls, always answer with the final text")
    parser.add_argument("--final-text", default="Done: the scripted command was handled.")
    opts = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", opts.port), handler)
    server.daemon_threads = True
    server.opts = opts
    server.requests = 0
    server.tool_calls = 0
    server.script = None
    if opts.tool_calls:
        with open(opts.tool_calls, encoding="utf-8") as script:
            server.script = json.load(script)
    with open(opts.ready_file + ".tmp", "w", encoding="utf-8") as ready:
        ready.write(str(server.server_address[1]))
    os.replace(opts.ready_file + ".tmp", opts.ready_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
