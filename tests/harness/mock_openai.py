#!/usr/bin/env python3
"""Scripted OpenAI Responses API mock for the Codex end-to-end tests.

Serves `POST /v1/responses` (SSE) on loopback. The script has two steps, chosen by what the
request carries rather than by a counter:

  * a request whose `input` holds a `function_call_output` (or any request once
    `--max-tool-calls` calls were scripted) gets the final text;
  * any other request that offers a shell tool gets one `function_call` of it, with the
    command under test in the argument shape that tool declares;
  * anything else gets a short text.

Every request is appended to `--log` as one JSON line: method, path, which answer it got,
the `output` of every `function_call_output`, and the full body. Stdlib only.
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()


def call_outputs(body):
    """Returns every function_call_output item of the request, in order."""
    found = []
    for item in body.get("input", []) or []:
        if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            if not isinstance(output, str):
                output = json.dumps(output)
            found.append({"call_id": item.get("call_id"), "content": output})
    return found


def shell_call(tools, command):
    """Picks the shell tool the request offers and builds its arguments.

    Returns (tool name, arguments JSON string) or None.
    """
    by_name = {}
    for tool in tools or []:
        if isinstance(tool, dict) and tool.get("type") == "function":
            by_name[tool.get("name")] = tool
    if "shell_command" in by_name:  # {"command": "<script>", "workdir"?, "timeout_ms"?}
        return "shell_command", json.dumps({"command": command})
    if "exec_command" in by_name:  # unified exec: {"cmd": "<script>", ...}
        return "exec_command", json.dumps({"cmd": command})
    if "shell" in by_name:  # {"command": ["bash", "-lc", "<script>"]}
        return "shell", json.dumps({"command": ["bash", "-lc", command]})
    return None


def sse(events):
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e)) for e in events).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-openai/1"

    def log_message(self, fmt, *args):
        pass

    def record(self, entry):
        with LOG_LOCK:
            with open(self.server.opts.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(dict(entry, time=round(time.time(), 3))) + "\n")

    def reply(self, status, content_type, payload):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):  # noqa: N802
        path = self.path.split("?", 1)[0]
        self.record({"method": "GET", "path": self.path, "answer": "models" if path.endswith("/models") else "404"})
        if path.endswith("/models"):
            self.reply(200, "application/json", b'{"object":"list","data":[],"models":[]}')
        else:
            self.reply(404, "application/json", b'{"error":{"message":"mock: not found"}}')

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("content-encoding", "").lower() == "zstd":
            body = {"unparsed": "zstd body"}
        else:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        opts = self.server.opts
        if not path.endswith("/responses"):
            self.record({"method": "POST", "path": self.path, "answer": "404", "body": body})
            self.reply(404, "application/json", b'{"error":{"message":"mock: not found"}}')
            return

        outputs = call_outputs(body)
        self.server.requests += 1
        resp_id = "resp_mock_%02d" % self.server.requests
        call = shell_call(body.get("tools"), opts.command)
        if outputs or self.server.tool_calls >= opts.max_tool_calls:
            answer = "final"
            item = {"type": "message", "role": "assistant", "id": "msg_" + resp_id, "status": "completed",
                    "content": [{"type": "output_text", "text": opts.final_text, "annotations": []}]}
        elif call is not None:
            self.server.tool_calls += 1
            answer = "tool_call:" + call[0]
            item = {"type": "function_call", "id": "fc_" + resp_id, "status": "completed",
                    "call_id": "call_mock_%02d" % self.server.tool_calls, "name": call[0], "arguments": call[1]}
        else:
            answer = "aux"
            item = {"type": "message", "role": "assistant", "id": "msg_" + resp_id, "status": "completed",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}
        self.record({"method": "POST", "path": self.path, "answer": answer, "tool_results": outputs, "body": body})

        usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                 "output_tokens_details": None, "total_tokens": 15}
        added = dict(item)
        if item["type"] == "message":
            added["content"] = []
            added["status"] = "in_progress"
        events = [
            {"type": "response.created", "response": {"id": resp_id}},
            {"type": "response.output_item.added", "output_index": 0, "item": added},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"id": resp_id, "usage": usage}},
        ]
        self.reply(200, "text/event-stream", sse(events))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", required=True, help="the shell command of the scripted tool call")
    parser.add_argument("--log", required=True, help="JSONL file that receives one line per request")
    parser.add_argument("--ready-file", required=True, help="written with the port once listening")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-tool-calls", type=int, default=3,
                        help="after this many scripted tool calls, always answer with the final text")
    parser.add_argument("--final-text", default="Done: the scripted command was handled.")
    opts = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
    server.daemon_threads = True
    server.opts = opts
    server.requests = 0
    server.tool_calls = 0
    with open(opts.ready_file + ".tmp", "w", encoding="utf-8") as ready:
        ready.write(str(server.server_address[1]))
    os.replace(opts.ready_file + ".tmp", opts.ready_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
