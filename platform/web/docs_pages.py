"""The bot authors' documents (docs/ in the repository) rendered on the site, so they are found there."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

DOCS = settings.REPO_DIR / "docs"
PAGES = {
    "protocol": ("The bot protocol", "protocol.md"),
    "replay": ("The replay format", "replay.md"),
    "sandbox": ("The sandbox", "sandbox.md"),
    "ratings": ("Ratings", "ratings.md"),
    "tournaments": ("Tournaments", "tournaments.md"),
    "matches": ("Matches on workers", "matches.md"),
    "rules-bura": ("Rules: the Bura family", "rules/bura.md"),
    "rules-kozel": ("Rules: Kozel", "rules/kozel.md"),
    "rules-burraco": ("Rules: Burraco", "rules/burraco.md"),
}
LINKS = {f"{name}": slug for slug, (_, name) in PAGES.items()}


@lru_cache(maxsize=32)
def _rendered(path: Path, mtime: float) -> str:
    # a column's alignment as an align attribute: a style attribute is refused by the Content-Security-Policy
    html = markdown.markdown(path.read_text(), extensions=["tables", "fenced_code", "toc"],
                             extension_configs={"tables": {"use_align_attribute": True}})
    # links between the documents point at their pages on the site
    def relink(match: re.Match) -> str:
        target = match.group(1).removeprefix("docs/").removeprefix("../")
        anchor = match.group(2) or ""
        slug = LINKS.get(target)
        return f'href="/docs/{slug}/{anchor}"' if slug else match.group(0)

    return re.sub(r'href="((?:\.\./|docs/)?[\w/.-]+\.md)(#[\w-]*)?"', relink, html)


def doc_page(request, slug: str = "protocol"):
    if slug not in PAGES:
        raise Http404("no such document")
    title, name = PAGES[slug]
    path = DOCS / name
    if not path.exists():
        raise Http404("no such document")
    html = _rendered(path, path.stat().st_mtime)  # the docs are ours, not user input: safe to show as HTML
    return render(request, "web/doc.html", {"title": title, "html": mark_safe(html), "pages": PAGES, "slug": slug})
