"""Sphinx configuration: the Markdown pages of docs/ (MyST) and the public Python API (autodoc).

Build with ``tox -e docs`` (warnings are errors) or ``sphinx-build -W -b html docs docs/_build/html``.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

# The package from this checkout, when it is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

project = "flask-coverage"
copyright = "the flask-coverage authors"
try:
    release = metadata.version("flask-coverage")
except metadata.PackageNotFoundError:  # a checkout that was never installed
    release = "unreleased"
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]

# Markdown: "#anchor" links to headings (GitHub's spelling) resolve, as they do on GitHub.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True}

html_theme = "alabaster"
html_title = "flask-coverage"
