"""The Content-Security-Policy in real Chromium: every page type is served with the strict policy and raises
no violation (neither a ``securitypolicyviolation`` event nor a console message), while it still works —
the replay viewer plays, Swagger UI and ReDoc draw the API, the forms sign up and log in. An inline script
added to a page does not run: the policy is enforced, not merely sent."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlparse

import pytest
from browser_helpers import ARTIFACTS, screenshot

# Playwright evaluates a predicate written as an expression with eval(), which the policy refuses: every
# script handed to the page here is a function.
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  `${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile || e.documentURI}:${e.lineNumber}`));
"""
DIRECTIVES = ("default-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
              "frame-ancestors 'none'")
PASSWORD = "a-long-password-1"


@pytest.fixture
def csp_page(page):
    """The page fixture, also recording CSP violations (events and console messages of any level)."""
    page.context.add_init_script(RECORD_VIOLATIONS)
    messages: list[str] = []
    page.on("console", lambda msg: messages.append(f"{msg.type}: {msg.text}"))
    page.console_messages = messages
    return page


def violations(page) -> list[str]:
    """Each distinct violation once (a page can repeat one a hundred times)."""
    found = page.evaluate("() => window.__csp || []")
    found += [m for m in page.console_messages if "Content Security Policy" in m or "Content-Security-Policy" in m]
    return sorted(set(found))


def top_of(page, name: str) -> None:
    """A screenshot of what the window shows (the API reference pages are tens of screens long)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def visit(page, url: str, status: int = 200, ready: str | None = None) -> None:
    response = page.goto(url)
    assert response.status == status, url
    policy = response.headers.get("content-security-policy", "")
    for directive in DIRECTIVES:
        assert directive in policy, f"{url}: {directive!r} not in {policy!r}"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    # ReDoc's search worker is the one extra, on its page only
    assert ("worker-src blob:" in policy) == url.endswith("/api/redoc/"), policy
    if ready:
        page.wait_for_selector(ready)
    page.wait_for_load_state("networkidle")


def test_every_page_type_works_under_the_policy_with_no_violation(live_server, csp_page, play):
    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import Tournament
    from web.docs_pages import PAGES

    page, base = csp_page, live_server.url
    match = play("burraco-2p")
    play("bura")
    host = User.objects.create_user(username="hostess", password=PASSWORD)
    cup = Tournament.objects.create(host=host, name="Policy cup", preset="bura", format="round_robin",
                                    starts_at=timezone.now() + timedelta(days=1))
    checked: list[str] = []
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    def check(name: str, path: str, status: int = 200, ready: str | None = None) -> None:
        visit(page, base + path, status, ready)
        assert violations(page) == [], f"{name} ({path}): {violations(page)}"
        checked.append(name)

    # pages anyone sees
    check("home", "/")
    check("leaderboard", "/games/bura/", ready="main h1")
    check("bots", "/bots/")
    check("bot", "/bots/greedy-bura/")
    check("tournaments", "/tournaments/")
    check("tournament", f"/tournaments/{cup.pk}/")
    check("docs", "/docs/", ready="article.doc")
    for slug in PAGES:
        check(f"docs-{slug}", f"/docs/{slug}/", ready="article.doc")
    check("not-found", "/matches/999999/", status=404)
    check("log-in", "/login/", ready="form")

    # the replay viewer, playing
    check("match", f"/matches/{match.pk}/", ready="#replay-viewer.ready")
    page.click("#rv-play")
    page.wait_for_function("() => Number(document.getElementById('replay-viewer').dataset.step) >= 3")
    page.click("#rv-play")
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('replay-viewer').dataset.step === "
                           "document.getElementById('rv-range').max")
    assert page.locator("#rv-table .pc").count() > 0, "the viewer drew no card"
    assert "End of the match" in page.inner_text("#rv-table")
    screenshot(page, "csp-viewer")
    assert violations(page) == []

    # the API docs: Swagger UI draws the operations, ReDoc the reference
    check("api-docs", "/api/docs/", ready="#swagger-ui .opblock-tag")
    assert page.locator("#swagger-ui .opblock").count() > 10
    page.locator("#swagger-ui .opblock-summary").first.click()  # an operation opens (scripted, styled UI)
    page.wait_for_selector("#swagger-ui .opblock-body")
    top_of(page, "csp-api-docs")
    assert violations(page) == []
    check("api-redoc", "/api/redoc/", ready="#redoc-container h1")
    assert "Kozyr API" in page.inner_text("#redoc-container h1")
    assert page.locator("#redoc-container [data-section-id]").count() > 10
    page.fill("#redoc-container input[placeholder^=Search]", "token")  # the search runs in a blob: worker
    page.wait_for_selector("#redoc-container [data-role='search:results'] li")
    top_of(page, "csp-api-redoc")

    # sign up (a form posted under form-action 'self'), then the signed-in pages
    check("sign-up", "/signup/", ready="form")
    page.fill("input[name=username]", "policy-reader")
    for name in ("password1", "password2"):
        if page.locator(f"input[name={name}]").count():
            page.fill(f"input[name={name}]", PASSWORD)
    if page.locator("input[name=email]").count():
        page.fill("input[name=email]", "reader@example.org")
    page.locator("main form button, main form [type=submit]").last.click()
    page.wait_for_load_state("networkidle")
    assert User.objects.filter(username="policy-reader").exists(), page.inner_text("main")
    assert violations(page) == [], violations(page)
    check("profile", "/profile/")
    check("new-bot", "/bots/new/", ready="form")
    check("new-tournament", "/tournaments/new/", ready="form")
    check("password", "/password/", ready="form")
    page.locator("header form button").click()  # log out
    page.wait_for_load_state("networkidle")

    # log in through the form, as the host, and see the host's controls on the tournament
    check("log-in-again", "/login/", ready="form")
    page.fill("input[name=username]", "hostess")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button").last.click()
    page.wait_for_load_state("networkidle")
    assert "hostess" in page.inner_text("header")
    check("tournament-host", f"/tournaments/{cup.pk}/")
    assert violations(page) == []
    assert not [e for e in page.errors if "404" not in e], page.errors  # the not-found page's own status
    outside = {urlparse(url).netloc for url in requested} - {urlparse(base).netloc, ""}
    assert not outside, f"the site must work offline, but pages asked {outside}"
    print(f"pages checked under the policy: {len(checked)}: {', '.join(checked)}")


def test_an_inline_script_does_not_run(live_server, csp_page):
    page = csp_page
    visit(page, live_server.url + "/")
    ran = page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.__inline_ran = true'; document.body.appendChild(s);
        const st = document.createElement('div'); st.setAttribute('style', 'color: red');
        document.body.appendChild(st);
        return [window.__inline_ran === true, getComputedStyle(st).color]; }""")
    assert ran == [False, default_colour(page)], ran
    page.wait_for_function("() => window.__csp.length >= 2")
    blocked = violations(page)
    assert any(v.startswith("script-src") for v in blocked) and any(v.startswith("style-src") for v in blocked)


def default_colour(page) -> str:
    """The colour a new div has without its (blocked) style attribute."""
    return page.evaluate("() => { const d = document.createElement('div'); document.body.appendChild(d);"
                         " return getComputedStyle(d).color; }")
