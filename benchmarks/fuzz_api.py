"""Schemathesis over every operation of the v2 API's OpenAPI document, against the demo data:
positive and negative requests, with and without the demo user's token; no answer may be a 5xx.

    .venv/bin/python benchmarks/fuzz_api.py --examples 25

Prints the count of each status per mode and exits 1 on any 5xx (docs/deployment.md, "Limits and abuse").
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the example app beside the package

from example_app import create_app  # noqa: E402
from flask_coverage.demo import demo_access_token, load_demo  # noqa: E402

#: The demo's names for the path parameters that name things.
REAL = {"service": "github", "owner_username": "acme", "repo": "marshmallow"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=25, help="requests per operation and mode")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp}/fuzz.db", "SECRET_KEY": "fuzz"})
        with app.app_context():
            load_demo(generated_files=100)
            token = demo_access_token()
        schema = schemathesis.openapi.from_wsgi("/api/v2/openapi.json", app)
        statuses: collections.Counter[tuple[str, int]] = collections.Counter()
        errors: list[str] = []

        def fuzz(operation, mode, auth) -> None:
            @settings(max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck))
            @given(case=operation.as_strategy(generation_mode=mode), real=st.booleans())
            def run(case, real: bool) -> None:
                if real:  # half of the requests name the demo's real owner and repository
                    for name in case.path_parameters or {}:
                        if name in REAL:
                            case.path_parameters[name] = REAL[name]
                status = case.call(headers=auth).status_code
                statuses[mode.value, status] += 1
                if status >= 500:
                    errors.append(f"{status} {case.method} {case.formatted_path} {case.query}")

            run()

        for result in schema.get_all_operations():
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                for auth in ({"Authorization": f"Bearer {token}"}, {}):
                    fuzz(result.ok(), mode, auth)
        for (mode, status), count in sorted(statuses.items()):
            print(f"{mode:9} {status}: {count}")
        print(f"{sum(statuses.values())} requests, {len(errors)} x 5xx")
        for error in errors[:20]:
            print("  ", error)
        return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
