"""GET {api}/{service}/{owner}/repos/{repo}/commits/{sha}/uploads/: the uploads of a commit."""

from __future__ import annotations

from flask_coverage.ingest import UploadMeta, upload_report
from flask_coverage.operations import add_user, create_token

SHA = "a1" * 20
URL = f"/api/v2/github/acme/repos/widgets/commits/{SHA}/uploads/"


def upload(widgets, make_lcov, path: str, **meta: object) -> None:
    upload_report(widgets, make_lcov({path: {1: 1}}), commit=SHA, meta=UploadMeta.create(**meta))


def test_uploads_are_listed_oldest_first_with_what_their_uploader_said(testapp, widgets, make_lcov) -> None:
    upload(widgets, make_lcov, "a.py", flags="unit,py39", name="linux", build="70", job="7", build_url="https://ci/7")
    upload(widgets, make_lcov, "b.py", provider="github-actions")
    body = testapp.get(URL).json
    assert (body["count"], body["total_pages"], body["next"], body["previous"]) == (2, 1, None, None)
    first, second = body["results"]
    assert first["flags"] == ["py39", "unit"] and second["flags"] == []
    assert (first["name"], first["build_code"], first["job_code"], first["build_url"]) == (
        "linux",
        "70",
        "7",
        "https://ci/7",
    )
    assert (first["state"], first["upload_type"], first["external_id"]) == ("processed", "uploaded", None)
    assert second["provider"] == "github-actions" and second["name"] is None
    assert first["created_at"] <= second["created_at"]
    # A sha prefix names the commit too; pages follow the shared pagination.
    paged = testapp.get(f"/api/v2/github/acme/repos/widgets/commits/{SHA[:7]}/uploads/?page_size=1").json
    assert paged["count"] == 2 and len(paged["results"]) == 1 and paged["next"].endswith("page_size=1&page=2")
    assert testapp.get(URL + "?page=3", status=404).json == {"detail": "Invalid page."}


def test_unknown_and_private_are_the_same_404(testapp, widgets, make_lcov, db) -> None:
    upload(widgets, make_lcov, "a.py")
    not_found = {"detail": "Not found."}
    for url in [URL.replace(SHA, "b" * 40), URL.replace("widgets", "nope"), URL.replace(SHA, "zz")]:
        assert testapp.get(url, status=404).json == not_found
    widgets.private = True
    db.session.commit()
    add_user("github", "mallory")
    token = create_token("github", "mallory", name="t")[1]
    assert testapp.get(URL, status=404).json == not_found
    assert testapp.get(URL, headers={"Authorization": f"Bearer {token}"}, status=404).json == not_found
