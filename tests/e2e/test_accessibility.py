"""Accessibility in real Chromium: axe-core (vendored from npm: vendor/axe-core/) audits every main page at a
desktop and a phone width, in the light and the dark colour scheme, and finds no serious or critical violation;
"Skip to content" is the first thing the keyboard reaches on every page and takes it to the content; the dark
scheme follows the system's; and the replay viewer is used with the keyboard alone. Screenshots go to
tests/e2e/artifacts/a11y/."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS

from tests.e2e.test_live_table import log_in as log_in_person
from tests.e2e.test_live_table import person, play_in_thread, sit_down  # noqa: F401  (person: a fixture)

pytestmark = pytest.mark.django_db(transaction=True)

VENDOR = Path(__file__).resolve().parent / "vendor" / "axe-core"
BLOCKING = ("serious", "critical")
PASSWORD = "a-long-password-1"
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"
FIRST_IN_TAB_ORDER_IS_THE_SKIP_LINK = """() => {
  const tabbable = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.type !== 'hidden');
  return tabbable[0] === document.querySelector('a.skip-link');
}"""
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' — ' + (n.failureSummary || '').replace(/\\s+/g, ' '))}));
}"""


def blocking_violations(page) -> list[str]:
    if not page.evaluate("() => !!window.axe"):
        # evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it
        page.evaluate((VENDOR / "axe.min.js").read_text())
    found = page.evaluate(RUN_AXE)
    return [f"{v['id']} ({v['impact']}): {v['help']}: {json.dumps(v['nodes'])}" for v in found
            if v["impact"] in BLOCKING]


def log_in(page, site: str, username: str) -> None:
    page.goto(f"{site}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def shoot(page, name: str) -> None:
    folder = ARTIFACTS / "a11y"
    folder.mkdir(parents=True, exist_ok=True)
    # a document runs to hundreds of screens: its first two are what a reader sees of its colours
    long = page.evaluate("() => document.documentElement.scrollHeight > 6 * window.innerHeight")
    page.screenshot(path=str(folder / f"{name}.png"), full_page=not long, timeout=90_000)


@pytest.fixture
def site(live_server, play):
    """A played bura match, a tournament open for entries, and a user who owns a bot."""
    from django.utils import timezone

    from accounts.models import User
    from bots.models import Bot
    from tournaments import actions

    match = play("bura")
    author = User.objects.create_user(username="dana", password=PASSWORD)
    Bot.objects.filter(name="random-bura").update(owner=author)
    cup = actions.do_create_tournament(author, name="Open cup", preset="bura", overrides={"match": "deals:1"},
                                       format="round_robin", rounds=None, deals=1, time_control=None,
                                       entry="open", max_entries=8, entry_deadline=None,
                                       starts_at=timezone.now() + timedelta(hours=2))
    return {"match": match.pk, "cup": cup.pk, "user": author.username}


def main_pages(site: dict) -> dict[str, tuple[str, bool]]:
    """name -> (path, whether it needs the user logged in)."""
    return {
        "home": ("/", False),
        "leaderboard": ("/games/bura/", False),
        "bots": ("/bots/", False),
        "bot": ("/bots/greedy-bura/", False),
        "match": (f"/matches/{site['match']}/", False),
        "embed": (f"/matches/{site['match']}/embed/", False),
        "tournaments": ("/tournaments/", False),
        "tournament": (f"/tournaments/{site['cup']}/", False),
        "docs": ("/docs/protocol/", False),
        "get-started": ("/docs/get-started/", False),
        "data": ("/data/", False),
        "login": ("/login/", False),
        "signup": ("/signup/", False),
        "not-found": ("/matches/999999/", False),
        "own-bot": ("/bots/random-bura/", True),
        "new-bot": ("/bots/new/", True),
        "profile": ("/profile/", True),
    }


def settle(page, name: str) -> None:
    page.wait_for_load_state("networkidle")
    if name in ("match", "embed"):
        page.wait_for_selector("#replay-viewer.ready")


@pytest.mark.parametrize("width", [1366, 390])
def test_every_main_page_has_no_serious_violation_and_skips_to_its_content(live_server, page, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    problems: list[str] = []
    for logged_in in (False, True):
        if logged_in:
            log_in(page, live_server.url, site["user"])
        for name, (path, needs_user) in main_pages(site).items():
            if needs_user != logged_in:
                continue
            page.emulate_media(color_scheme="light")
            page.goto(live_server.url + path)
            settle(page, name)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)  # the same page, redrawn in the other scheme
                problems += [f"{path} at {width} px, {scheme}: {v}" for v in blocking_violations(page)]
                if not page.evaluate(FITS):
                    problems.append(f"{path} at {width} px scrolls sideways")
                shoot(page, f"{name}-{scheme}-{width}")
            if name == "embed":
                continue  # the frame of another site's page: no header to skip
            # the keyboard's first stop is the skip link; following it puts the focus on the content. A form whose
            # first field has the focus already (log in, sign up) starts there: the link is still first in order.
            if page.evaluate("() => document.activeElement !== document.body"):
                if not page.evaluate(FIRST_IN_TAB_ORDER_IS_THE_SKIP_LINK):
                    problems.append(f"{path}: the skip link is not first in the tab order")
                page.focus("a.skip-link")
            else:
                page.keyboard.press("Tab")
            first = page.evaluate("() => [document.activeElement.textContent,"
                                  " document.activeElement.getAttribute('href')]")
            if first != ["Skip to content", "#content"]:
                problems.append(f"{path}: the first Tab reaches {first}, not the skip link")
                continue
            assert page.locator("a.skip-link").is_visible(), f"{path}: the focused skip link is not shown"
            page.keyboard.press("Enter")
            page.wait_for_function("() => document.activeElement && document.activeElement.id === 'content'")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_live_table_has_no_serious_violation(live_server, page, person, width):  # noqa: F811
    from matches.models import Match

    page.set_viewport_size({"width": width, "height": 900})
    log_in_person(page, live_server.url, person)
    match_id = sit_down(page, live_server.url, "greedy-bura")
    worker = play_in_thread(match_id)
    page.wait_for_selector("#table-hand button.card")  # dealt, and the person is to move
    problems: list[str] = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        problems += [f"/play/{match_id}/ at {width} px, {scheme}: {v}" for v in blocking_violations(page)]
        shoot(page, f"table-{scheme}-{width}")
    page.once("dialog", lambda dialog: dialog.accept())  # resigned, so the match ends here
    page.click("#table-resign")
    page.wait_for_function("() => document.querySelector('#table').dataset.over")
    worker.join(60)
    assert Match.objects.get(pk=match_id).is_done
    assert not problems, "\n".join(problems)


def test_the_dark_scheme_follows_the_system(live_server, page, site):
    colours = "() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
    page.emulate_media(color_scheme="light")
    page.goto(f"{live_server.url}/bots/")
    light_bg, light_ink = page.evaluate(colours)
    page.emulate_media(color_scheme="dark")
    dark_bg, dark_ink = page.evaluate(colours)

    def luminance(css: str) -> float:
        r, g, b = (int(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    assert luminance(light_bg) > 200 and luminance(light_ink) < 80, (light_bg, light_ink)
    assert luminance(dark_bg) < 40 and luminance(dark_ink) > 200, (dark_bg, dark_ink)


def test_the_replay_viewer_is_used_with_the_keyboard_alone(live_server, page, site):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/matches/{site['match']}/")
    page.wait_for_selector("#replay-viewer.ready")
    step = "() => Number(document.getElementById('replay-viewer').dataset.step)"
    idle = "() => !document.getElementById('replay-viewer').hasAttribute('aria-busy')"

    page.keyboard.press("Tab")  # the skip link, then into the page's content
    page.keyboard.press("Enter")
    for key, expected in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", None), ("Home", 0)):
        page.keyboard.press(key)
        if expected is None:
            page.wait_for_function(f"() => ({step})() === Number(document.getElementById('rv-range').max)")
        else:
            page.wait_for_function(f"() => ({step})() === {expected} && ({idle})()")

    page.keyboard.press(" ")  # play: the steps move on their own, the button says so
    page.wait_for_function("() => document.getElementById('rv-play').getAttribute('aria-pressed') === 'true'")
    page.wait_for_function(f"() => ({step})() >= 2")
    page.keyboard.press(" ")  # pause: they stop
    page.wait_for_function("() => document.getElementById('rv-play').getAttribute('aria-pressed') === 'false'")
    page.wait_for_function(idle)
    paused_at = page.evaluate(step)
    page.wait_for_timeout(1200)  # sleep-ok: longer than a step at the chosen speed, and nothing may move
    assert page.evaluate(step) == paused_at

    # the controls themselves, reached with Tab and pressed with Enter
    def tab_to(selector: str) -> None:
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate("s => document.activeElement === document.querySelector(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#rv-forward")
    assert page.evaluate("() => getComputedStyle(document.activeElement, ':focus-visible').outlineStyle") != "none"
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => ({step})() === {paused_at + 1} && ({idle})()")
    tab_to("#rv-copy")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('rv-copied').textContent.startsWith('Link copied')")
    shown = page.get_attribute("#rv-link", "href")  # the position shown (a deal's end carries &end=1)
    assert shown.startswith(f"#step={paused_at + 1}&") and shown.endswith("&seat=all")
    assert page.evaluate("() => navigator.clipboard.readText()") == f"{live_server.url}/matches/{site['match']}/{shown}"
    assert not page.errors, page.errors


def test_the_vendored_axe_is_the_one_its_readme_names():
    readme = (VENDOR / "README.md").read_text()
    package = json.loads((VENDOR / "package.json").read_text())
    assert package["name"] == "axe-core" and f"`axe-core` {package['version']}" in readme
    assert hashlib.sha256((VENDOR / "axe.min.js").read_bytes()).hexdigest() in readme
    assert "Mozilla Public License" in (VENDOR / "LICENSE").read_text()
