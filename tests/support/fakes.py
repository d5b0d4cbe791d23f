"""Fakes shared by the waiter tests: a cluster read by REST path, a clock, Kubernetes conditions, and for the real
client a credential plugin and an API server on localhost."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def cond(type_: str, status: str = "True", reason: str = "", message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason, "message": message}


class NotFoundError(Exception):
    status = 404


class FakeCluster:
    """:class:`components.waiters.kube_wait.Cluster` over a dict: path -> object (``get``), items (``list``) or an
    error."""

    def __init__(self, objects: dict[str, Any]) -> None:
        self.objects = objects
        self.selectors: dict[str, str | None] = {}

    def _found(self, path: str) -> Any:
        found = self.objects[path] if path in self.objects else NotFoundError(path)
        if isinstance(found, Exception):
            raise found
        return found

    def get(self, path: str) -> Any:
        return self._found(path)

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        self.selectors[path] = label_selector
        return self._found(path)


def serve_from(monkeypatch: Any, waiter_module: Any) -> Callable[[dict[str, Any]], None]:
    """``install(objects)``: the waiter module's ``RestCluster`` reads ``objects`` instead of a cluster."""

    def install(objects: dict[str, Any]) -> None:
        monkeypatch.setattr(waiter_module, "RestCluster", lambda kubeconfig: FakeCluster(objects))

    return install


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def exec_kubeconfig(server: str, command: str, install_hint: str | None = None) -> str:
    """A kubeconfig whose user signs in by running ``command`` as an exec credential plugin, as kubelogin's does."""
    plugin: dict[str, Any] = {"apiVersion": EXEC_API_VERSION, "command": command, "interactiveMode": "Never"}
    if install_hint:
        plugin["installHint"] = install_hint
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {"exec": plugin}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "c",
        }
    )


def plugin_script(directory: Path, body: str) -> str:
    """An executable shell script in ``directory`` running ``body``: a credential plugin the real client can run."""
    script = directory / "plugin"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return str(script)


def token_plugin(directory: Path, token_file: Path) -> str:
    """A plugin answering with the token in ``token_file`` as it is when the plugin runs (a renewed sign-in)."""
    credential = {"apiVersion": EXEC_API_VERSION, "kind": "ExecCredential", "status": {"token": "TOKEN"}}
    template = json.dumps(credential).replace("TOKEN", "%s")
    return plugin_script(directory, f"printf '{template}' \"$(cat '{token_file}')\"")


def failing_plugin(directory: Path, stderr: str) -> str:
    """A plugin that fails the way kubelogin does: its reason on stderr, exit code 1."""
    return plugin_script(directory, f"echo '{stderr}' >&2; exit 1")


class FakeApiServer:
    """A plain-HTTP API server on localhost answering every GET with the status ``answer`` gives its Authorization
    header (``None``: an anonymous request); ``seen`` records those headers. A POST is answered ``201 Created`` with
    what ``created`` makes of its path and JSON body; ``posted`` records both."""

    def __init__(self, answer: Callable[[str | None], int], created: Callable[[str, Any], Any] | None = None) -> None:
        self.seen: list[str | None] = []
        self.posted: list[tuple[str, Any, str | None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, status: int, answer: Any) -> None:
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                authorization = self.headers.get("Authorization")
                server.seen.append(authorization)
                status = answer(authorization)
                self._reply(status, {"kind": "Status", "code": status})

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
                server.posted.append((self.path, request, self.headers.get("Content-Type")))
                self._reply(201, created(self.path, request) if created else request)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    SHUTDOWN_POLL_SECONDS = 0.02
    """How often the serving thread looks for :meth:`__exit__`'s shutdown: ``serve_forever``'s default, 0.5 s, is
    up to half a second each test waits for the server to stop."""

    def __enter__(self) -> FakeApiServer:
        serve = functools.partial(self.httpd.serve_forever, poll_interval=self.SHUTDOWN_POLL_SECONDS)
        threading.Thread(target=serve, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
