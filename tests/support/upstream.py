"""Kueue's upstream, on loopback: the tags' raw files over HTTP and the chart in a minimal OCI registry, for the tests
of tools/kueue_assets.py. Nothing leaves 127.0.0.1.

The registry answers the requests ``helm pull oci://... --version V --plain-http`` makes (the distribution spec's
pull API, https://github.com/opencontainers/distribution-spec/blob/v1.1.0/spec.md#pull): the tag list, the manifest
by tag, and the config and chart blobs by digest, with the media types Helm's OCI support writes
(https://helm.sh/docs/topics/registries/#oci-feature-deprecation-and-behavior-changes-with-v380).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
CONFIG = "application/vnd.cncf.helm.config.v1+json"
CHART = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
REPOSITORY = "kueue/charts/kueue"


@dataclass
class Upstream:
    """What the loopback server serves: raw files by URL path (``/v0.19.2/<path>``), chart archives by version."""

    raw: dict[str, bytes] = field(default_factory=dict)
    charts: dict[str, bytes] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    """Every path asked for, in order."""
    base: str = ""
    """``http://127.0.0.1:<port>`` once serving."""

    @property
    def chart_ref(self) -> str:
        return f"oci://{self.base.removeprefix('http://')}/{REPOSITORY}"

    def blobs(self) -> dict[str, tuple[str, bytes]]:
        """Every manifest (by tag and by digest) and blob (by digest): media type and body."""
        served: dict[str, tuple[str, bytes]] = {}
        for version, archive in self.charts.items():
            config = json.dumps({"apiVersion": "v2", "name": "kueue", "version": version}).encode()
            manifest = json.dumps(
                {
                    "schemaVersion": 2,
                    "mediaType": MANIFEST,
                    "config": {"mediaType": CONFIG, "digest": _digest(config), "size": len(config)},
                    "layers": [{"mediaType": CHART, "digest": _digest(archive), "size": len(archive)}],
                }
            ).encode()
            served[f"manifests/{version}"] = served[f"manifests/{_digest(manifest)}"] = (MANIFEST, manifest)
            served[f"blobs/{_digest(config)}"] = (CONFIG, config)
            served[f"blobs/{_digest(archive)}"] = (CHART, archive)
        return served


def _digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 64
    """Room for the fetcher's concurrent connections: past the default 5 the kernel drops a SYN, retried 1 s later."""


@contextlib.contextmanager
def serving(upstream: Upstream) -> Iterator[Upstream]:
    """Serve ``upstream`` on a free loopback port in a thread for the ``with`` block."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            upstream.requests.append(self.path)
            found = self._find()
            if found is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            media_type, data = found
            self.send_response(200)
            self.send_header("Content-Type", media_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Docker-Content-Digest", _digest(data))
            self.end_headers()
            if body:
                self.wfile.write(data)

        def _find(self) -> tuple[str, bytes] | None:
            path = self.path.split("?")[0]
            if path in ("/v2", "/v2/"):
                return "application/json", b"{}"
            if path == f"/v2/{REPOSITORY}/tags/list":
                tags = {"name": REPOSITORY, "tags": sorted(upstream.charts)}
                return "application/json", json.dumps(tags).encode()
            if path.startswith(f"/v2/{REPOSITORY}/"):
                return upstream.blobs().get(path.removeprefix(f"/v2/{REPOSITORY}/"))
            if path in upstream.raw:
                return "text/plain", upstream.raw[path]
            return None

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the tests read :attr:`Upstream.requests` instead."""

    server = _Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    upstream.base = f"http://127.0.0.1:{server.server_port}"
    try:
        yield upstream
    finally:
        server.shutdown()  # at serve_forever's next poll
        server.server_close()
        thread.join()
