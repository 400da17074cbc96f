"""Sharing a replay, in real Chromium: a link opens the viewer at a step (the hash, or ?step=N), "copy link to
this step" copies the match page's address at the shown position, and /matches/N/embed/ plays in another
site's <iframe> under the site's own CSP, the only page that may be framed, with the replay's access rules."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_helpers import screenshot

pytestmark = pytest.mark.django_db(transaction=True)



def wait_step(frame, step: int) -> None:
    frame.wait_for_function(
        "step => { const v = document.getElementById('replay-viewer');"
        " return v && v.classList.contains('ready') && v.dataset.step === String(step)"
        " && !v.hasAttribute('aria-busy'); }",
        arg=step)


@pytest.fixture
def blog():
    """blog(html) -> the address of a page of another site (another origin: its own server and port) showing
    html. A real server: Chromium does not load a cross-origin frame into a page that Playwright made up."""
    pages: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def publish(html: str) -> str:
        pages["/post"] = html.encode()
        return f"http://127.0.0.1:{server.server_address[1]}/post"

    yield publish
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("width", [1366, 390])
def test_a_link_opens_at_a_step_and_the_viewer_copies_a_link_to_its_step(live_server, page, play, width):
    match = play("bura")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(f"{live_server.url}/matches/{match.pk}/?step=5")
    wait_step(page, 5)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => Number(document.getElementById('replay-viewer').dataset.step) > 5")
    step = int(page.get_attribute("#replay-viewer", "data-step"))
    page.click("#rv-copy")
    page.wait_for_function("() => document.getElementById('rv-copied').textContent.startsWith('Link copied')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link.startswith(f"{live_server.url}/matches/{match.pk}/#step={step}")
    assert link.endswith("&seat=all")
    screenshot(page, f"share-copied-{width}")

    other = page.context.new_page()
    other.goto(link)
    wait_step(other, step)
    assert f"step {step} /" in other.inner_text("#rv-step")
    other.close()
    assert not page.errors, page.errors


@pytest.mark.parametrize("width", [1366, 390])
def test_the_embedded_viewer_plays_in_another_sites_frame_and_only_it_may_be_framed(live_server, page, play, blog,
                                                                                   width):
    match = play("bura")
    embed = f"{live_server.url}/matches/{match.pk}/embed/"
    full = f"{live_server.url}/matches/{match.pk}/"
    post = (f'<!doctype html><title>A blog post</title><h1>Look at step 7</h1>'
            f'<iframe id="embed" src="{embed}#step=7&seat=0" width="{width - 40}" height="640"></iframe>'
            f'<iframe id="page" src="{full}" width="300" height="200"></iframe>')
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(blog(post))

    frame = page.frame_locator("#embed")
    viewer = page.frame(url=lambda url: "/embed/" in url)
    wait_step(viewer, 7)
    assert viewer.get_attribute("#replay-viewer", "data-view") == "0"
    frame.locator("#rv-forward").click()
    wait_step(viewer, 8)
    assert frame.locator("header.top").count() == 0  # no site chrome in a frame
    opened = frame.locator("#embed-open")
    assert opened.get_attribute("href") == f"{full}#step=8&seat=0"  # the match page, at the shown position
    assert opened.get_attribute("target") == "_blank"
    screenshot(page, f"share-embed-{width}")

    # the match page itself refuses to be framed: its frame never gets the page
    assert page.frame(url=lambda url: url.rstrip("/").endswith(f"/matches/{match.pk}")) is None
    assert [f for f in page.frames if f.url.startswith("chrome-error://")], [f.url for f in page.frames]
    assert not [e for e in page.errors if "Content Security Policy" in e and "/embed/" in e], page.errors


def test_only_the_embed_may_be_framed_and_it_keeps_the_policy(client, play):
    match = play("bura")
    embed = client.get(f"/matches/{match.pk}/embed/")
    assert embed.status_code == 200
    policy = embed["Content-Security-Policy"]
    assert "frame-ancestors *" in policy
    assert "script-src 'self'" in policy and "default-src 'self'" in policy  # the rest is the site's own
    assert "X-Frame-Options" not in embed
    for path in (f"/matches/{match.pk}/", "/", f"/matches/{match.pk}/frames/"):
        answer = client.get(path)
        assert "frame-ancestors 'none'" in answer["Content-Security-Policy"], path
        assert answer["X-Frame-Options"] == "DENY", path


def test_the_embed_is_404_where_the_replay_is_hidden(client, play):
    from matches.models import Match

    match = play("bura")
    other = Match.objects.filter(base_seed=match.base_seed).exclude(pk=match.pk).first()
    assert client.get(f"/matches/{match.pk}/embed/").status_code == 200
    assert client.get("/matches/999999/embed/").status_code == 404

    # another match of the deal still to play: every hand is still secret
    Match.objects.filter(pk=other.pk).update(status=Match.Status.QUEUED)
    refused = client.get(f"/matches/{match.pk}/embed/")
    assert refused.status_code == 404
    assert "frame-ancestors 'none'" in refused["Content-Security-Policy"]
    Match.objects.filter(pk=other.pk).update(status=Match.Status.FINISHED)

    # a validation match is its bot's owner's business; a frame on another site is read without a session
    Match.objects.filter(pk=match.pk).update(kind=Match.Kind.VALIDATION)
    assert client.get(f"/matches/{match.pk}/embed/").status_code == 404
