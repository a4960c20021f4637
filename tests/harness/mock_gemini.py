#!/usr/bin/env python3
"""Scripted Gemini API mock for the Gemini CLI end-to-end tests.

Serves `POST /v1beta/models/<model>:generateContent` and `…:streamGenerateContent?alt=sse`
on loopback (plus `:countTokens`). The script has two steps, chosen by what the request
carries rather than by a counter (Gemini CLI sends a tool-less routing request first):

  * a request whose `contents` hold a `functionResponse` (or any request once
    `--max-tool-calls` calls were scripted) gets the final text;
  * any other request that declares the `run_shell_command` function gets one
    `functionCall` of it with `{"command": <--command>}`;
  * anything else (routing, summaries, next-speaker checks) gets a short text, or the JSON
    object the request's `responseSchema`/`responseJsonSchema` asks for.

With `--tool-calls FILE` (a JSON list of `{"name", "input"}`) the script is that sequence
instead: a request that declares tools and carries N function responses gets call N+1 (id
`call_mock_0<N+1>`, `args` = `input`), and one carrying them all gets the final text.

Every request is appended to `--log` as one JSON line: method, path, which answer it got,
the `response` of every `functionResponse` (as `content` text), and the full body. Stdlib only.
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_LOCK = threading.Lock()
SHELL_TOOL = "run_shell_command"
# The id the mock gives its scripted call (Gemini CLI echoes it in the functionResponse).
CALL_ID = "call_mock_01"


def function_responses(body):
    """Returns every functionResponse part of the request, in order."""
    found = []
    for content in body.get("contents", []) or []:
        for part in (content or {}).get("parts", []) or []:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                payload = response.get("response")
                if isinstance(payload, dict) and isinstance(payload.get("output"), str):
                    text = payload["output"]
                elif isinstance(payload, dict) and isinstance(payload.get("error"), str):
                    text = payload["error"]
                else:
                    text = json.dumps(payload)
                found.append({"call_id": response.get("id"), "name": response.get("name"), "content": text,
                              "response": payload})
    return found


def declares_shell(body):
    for tool in body.get("tools", []) or []:
        for decl in (tool or {}).get("functionDeclarations", []) or []:
            if isinstance(decl, dict) and decl.get("name") == SHELL_TOOL:
                return True
    return False


def schema_answer(body):
    """A minimal JSON object for a structured-output side request (routing, next speaker)."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties") or {}
    answer = {}
    for name, prop in props.items():
        kind = str((prop or {}).get("type", "string")).lower()
        enum = (prop or {}).get("enum")
        if enum:
            answer[name] = enum[0]
        elif kind == "boolean":
            answer[name] = False
        elif kind in ("number", "integer"):
            answer[name] = 1
        else:
            answer[name] = "mock"
    # The router picks the model by name: keep whatever the CLI asked for.
    if "model_choice" in answer:
        answer["model_choice"] = "flash"
    if "next_speaker" in answer:
        answer["next_speaker"] = "user"
    return json.dumps(answer)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-gemini/1"

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
        self.record({"method": "GET", "path": self.path, "answer": "404"})
        self.reply(404, "application/json", b'{"error":{"code":404,"message":"mock: not found"}}')

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0]
        opts = self.server.opts
        if path.endswith(":countTokens"):
            self.record({"method": "POST", "path": self.path, "answer": "count", "body": body})
            self.reply(200, "application/json", b'{"totalTokens": 10}')
            return
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            self.record({"method": "POST", "path": self.path, "answer": "404", "body": body})
            self.reply(404, "application/json", b'{"error":{"code":404,"message":"mock: not found"}}')
            return

        results = function_responses(body)
        with LOG_LOCK:
            scripted = self.server.tool_calls
        script = self.server.script
        if script is not None:
            step = len(results)
            if step < len(script) and body.get("tools"):
                call = script[step]
                answer = "tool_call:" + call["name"]
                parts = [{"functionCall": {"id": "call_mock_%02d" % (step + 1), "name": call["name"],
                                           "args": call["input"]}}]
            elif step >= len(script):
                answer = "final"
                parts = [{"text": opts.final_text}]
            else:
                answer = "aux"
                parts = [{"text": schema_answer(body) or "ok"}]
        elif results or scripted >= opts.max_tool_calls:
            answer = "final"
            parts = [{"text": opts.final_text}]
        elif declares_shell(body):
            with LOG_LOCK:
                self.server.tool_calls += 1
            answer = "tool_call:" + SHELL_TOOL
            parts = [{"functionCall": {"id": CALL_ID, "name": SHELL_TOOL,
                                       "args": {"command": opts.command,
                                                "description": "scripted by the mock"}}}]
        else:
            answer = "aux"
            parts = [{"text": schema_answer(body) or "ok"}]
        self.record({"method": "POST", "path": self.path, "answer": answer, "tool_results": results, "body": body})

        response = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "mock-model",
        }
        if path.endswith(":streamGenerateContent"):
            self.reply(200, "text/event-stream", ("data: %s\r\n\r\n" % json.dumps(response)).encode())
        else:
            self.reply(200, "application/json", json.dumps(response).encode())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--command", default="", help="the shell command of the scripted tool call")
    parser.add_argument("--tool-calls", help="a JSON file: the list of tool calls to script, in order")
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


if __name__ == "__main__":
    sys.exit(main())
