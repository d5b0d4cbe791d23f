"""Fakes shared by the waiter tests: a cluster read by REST path, a clock, and Kubernetes conditions."""

from __future__ import annotations

from typing import Any


def cond(type_: str, status: str = "True", reason: str = "", message: str = "") -> dict:
    return {"type": type_, "status": status, "reason": reason, "message": message}


class NotFoundError(Exception):
    status = 404


class FakeCluster:
    """:class:`components.kube_wait.Cluster` over a dict: path -> object (``get``), items (``list``) or an error."""

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


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
