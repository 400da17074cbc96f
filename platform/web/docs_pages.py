"""The bot authors' documents (docs/ in the repository) rendered on the site, so they are found there."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import markdown
from django.conf import settings
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe

from web.kits import kits

DOCS = settings.REPO_DIR / "docs"
PAGES = {
    "protocol": ("The bot protocol", "protocol.md"),
    "api": ("The REST API", "api.md"),
    "training": ("Training bots", "training.md"),
    "bots": ("Built-in bots and analysis", "bots.md"),
    "analysis": ("Match analysis", "analysis.md"),
    "replay": ("The replay format", "replay.md"),
    "sandbox": ("The sandbox", "sandbox.md"),
    "ratings": ("Ratings", "ratings.md"),
    "tournaments": ("Tournaments", "tournaments.md"),
    "data": ("Open data", "data.md"),
    "notifications": ("Notifications and webhooks", "notifications.md"),
    "matches": ("Matches on workers", "matches.md"),
    "rules-bura": ("Rules: the Bura family", "rules/bura.md"),
    "rules-kozel": ("Rules: Kozel", "rules/kozel.md"),
    "rules-burraco": ("Rules: Burraco", "rules/burraco.md"),
    "starter-kits": ("Starter kits", "../examples/README.md"),
}
LINKS = {f"{name}": slug for slug, (_, name) in PAGES.items()}
# a repository path named in a document's text (`docs/ratings.md`), linked to its page on the site
PATH_IN_CODE = re.compile(r"<code>((?:\.\./)?(?:docs/)?([\w/-]+\.md)|docs/rules/(?:&lt;game&gt;\.md)?|examples/)"
                          r"</code>")
# the remote-bot guide is a section of the protocol: listed on its own, where a reader looks for it
REMOTE_BOTS = ("Remote bots", "/docs/protocol/#7-remote-bots")
RULES_PAGES = (("Bura", "rules-bura"), ("Kozel", "rules-kozel"), ("Burraco", "rules-burraco"))


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

    html = re.sub(r'href="((?:\.\./|docs/)?[\w/.-]+\.md)(#[\w-]*)?"', relink, html)
    html = re.sub(rf'<a href="([^"]*)">(.*?)</a>|{PATH_IN_CODE.pattern}', keep_or_link, html)
    # a wide table scrolls in its own box, not the page; a code block that scrolls can be reached with the keyboard
    html = html.replace("<table>", '<div class="scroll" tabindex="0"><table>').replace("</table>", "</table></div>")
    return html.replace("<pre>", '<pre tabindex="0">')


def keep_or_link(match: re.Match) -> str:
    """A link stays, unless it points into the repository where the site has no page (`../docs/rules/`):
    then its text is what is left, linked as a path. A path in code outside a link is linked."""
    if match.group(1) is None:
        return link_path(match, 3)
    if match.group(1).startswith(("/", "#", "http://", "https://", "mailto:")):
        return match.group(0)
    return PATH_IN_CODE.sub(lambda inner: link_path(inner, 1), match.group(2))


def link_path(match: re.Match, first: int) -> str:
    """`docs/protocol.md` links to the protocol's page; `docs/rules/<game>.md` becomes each game's rules;
    `examples/` to the starter kits. A path with no page on the site stays as it is."""
    code, text, md = match.group(0), match.group(first), match.group(first + 1)
    if text.startswith("docs/rules/") and not md:
        links = [f'<a href="/docs/{slug}/">{name}</a>' for name, slug in RULES_PAGES]
        return f"the rules of {', '.join(links[:-1])} or {links[-1]}"
    if text == "examples/":
        return f'<a href="/docs/starter-kits/">{code}</a>'
    slug = LINKS.get(md)
    return f'<a href="/docs/{slug}/">{code}</a>' if slug else code


def doc_page(request, slug: str = "protocol"):
    if slug not in PAGES:
        raise Http404("no such document")
    title, name = PAGES[slug]
    path = DOCS / name
    if not path.exists():
        raise Http404("no such document")
    html = _rendered(path, path.stat().st_mtime)  # the docs are ours, not user input: safe to show as HTML
    context = {"title": title, "html": mark_safe(html), "nav": nav(slug), "slug": slug,
               "kits": kits() if slug == "starter-kits" else []}
    return render(request, "web/doc.html", context)


def nav(current: str) -> list[dict]:
    """The documents' navigation: getting the tools first, then every document, the remote-bot guide after
    the protocol it is part of."""
    items = [{"title": "Get started", "url": reverse("get-started"), "current": current == "get-started"}]
    for key, (title, _) in PAGES.items():
        items.append({"title": title, "url": reverse("doc", args=[key]), "current": key == current})
        if key == "protocol":
            items.append({"title": REMOTE_BOTS[0], "url": REMOTE_BOTS[1], "current": False})
    return items
