"""An AG-UI agent behind HTTP/SSE (Idun's ``POST /agent/run`` shape), served locally by the stdlib.

The server speaks the 0.1.x dialect Idun uses: ``THINKING_*`` events, ``CUSTOM on_interrupt``,
and resume through ``forwardedProps.command.resume`` (``resume_style="forwarded_props"``).
"""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from noesis_nb.integrations import start
from noesis_nb.integrations.agui import AGUIAdapter, AGUIHttpAgent


class Agent(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        resume = (body.get("forwardedProps") or {}).get("command", {}).get("resume")
        if resume is None:
            events = [
                {"type": "RUN_STARTED", **ids},
                {"type": "THINKING_START", "title": "planning"},
                {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "This needs a human."},
                {"type": "THINKING_END"},
                {"type": "CUSTOM", "name": "on_interrupt", "value": json.dumps({"message": "Send the invoice?"})},
                {"type": "RUN_FINISHED", **ids},
            ]
        else:
            text = "Invoice sent." if resume["approved"] else f"Not sent: {resume.get('reason')}"
            events = [
                {"type": "RUN_STARTED", **ids},
                {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text},
                {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
                {"type": "RUN_FINISHED", **ids},
            ]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())


async def main(url):
    adapter = AGUIAdapter(AGUIHttpAgent(url), resume_style="forwarded_props")
    handle = start("send the March invoice", using=adapter, runs_dir="runs", approver="ask")
    await handle
    print(handle.status, handle.pending[0].redacted_payload["kwargs"]["interrupt"]["message"])
    handle.reject(reason="amount looks wrong")  # what the Reject button does
    await handle.wait()
    print(handle.status, handle.result())
    print("resume sent:", adapter.agent.requests[-1]["forwardedProps"])


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        asyncio.run(main(f"http://127.0.0.1:{server.server_address[1]}/agent/run"))
    finally:
        server.shutdown()
