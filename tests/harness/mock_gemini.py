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

import json
import sys

import mock_server
from mock_server import AUX, FINAL, LOG_LOCK, SHELL, MockHandler, next_answer

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


class Handler(MockHandler):
    server_version = "mock-gemini/1"
    not_found_body = b'{"error":{"code":404,"message":"mock: not found"}}'

    def do_GET(self):  # noqa: N802
        self.not_found("GET")

    def do_POST(self):  # noqa: N802
        body = self.read_body()
        path = self.route()
        opts = self.server.opts
        if path.endswith(":countTokens"):
            self.record({"method": "POST", "path": self.path, "answer": "count", "body": body})
            self.reply(200, "application/json", b'{"totalTokens": 10}')
            return
        if not (path.endswith(":generateContent") or path.endswith(":streamGenerateContent")):
            self.not_found("POST", body)
            return

        results = function_responses(body)
        with LOG_LOCK:
            step = next_answer(self.server, results, body, declares_shell(body))
        if step == FINAL:
            answer = FINAL
            parts = [{"text": opts.final_text}]
        elif step == SHELL:
            with LOG_LOCK:
                self.server.tool_calls += 1
            answer = "tool_call:" + SHELL_TOOL
            parts = [{"functionCall": {"id": CALL_ID, "name": SHELL_TOOL,
                                       "args": {"command": opts.command,
                                                "description": "scripted by the mock"}}}]
        elif step == AUX:
            answer = AUX
            parts = [{"text": schema_answer(body) or "ok"}]
        else:
            call = self.server.script[step]
            answer = "tool_call:" + call["name"]
            parts = [{"functionCall": {"id": "call_mock_%02d" % (step + 1), "name": call["name"],
                                       "args": call["input"]}}]
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


if __name__ == "__main__":
    sys.exit(mock_server.main(__doc__, Handler, command_help="the shell command of the scripted tool call"))
