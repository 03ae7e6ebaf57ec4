"""Run jobs against an app in threads that start together, as concurrent uploads would."""

from __future__ import annotations

import threading
from typing import Any, Callable

from flask import Flask


def run_together(app: Flask, jobs: list[Callable[[], Any]]) -> list[str]:
    """Run each of ``jobs`` in a thread of its own with an app context of ``app``, all released at once
    (a barrier), and wait for them; returns the errors they raised (``repr``), for the test to assert on."""
    barrier = threading.Barrier(len(jobs))
    errors: list[str] = []

    def run(job: Callable[[], Any]) -> None:
        try:
            with app.app_context():
                barrier.wait()
                job()
        except Exception as error:  # reported to the main thread, which fails the test
            errors.append(repr(error))

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
