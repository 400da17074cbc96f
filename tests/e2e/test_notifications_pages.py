"""The notifications in real Chromium at a desktop and a phone width (issue 36, Notifications): the bell in the
header with its unread count, the inbox that reads what it shows (the count is gone on the next page), the
settings on the profile page and the secret page; no sideways scrolling, no console error. Screenshots under
tests/e2e/artifacts/notifications/ for a person to look at."""

from __future__ import annotations

from browser_helpers import ARTIFACTS

MEASURE = "() => [document.documentElement.scrollWidth, window.innerWidth]"


def log_in(page, site: str, username: str) -> None:
    page.goto(f"{site}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "a-long-password-1")
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)


def test_the_bell_counts_unread_notifications_and_the_inbox_reads_them_at_both_widths(live_server, browser,
                                                                                     transactional_db, settings):
    from accounts.models import User
    from notifications.emit import record
    from notifications.models import Attempt, Delivery, Event

    settings.NOTIFY_PUBLIC_WEBHOOKS_ONLY = False
    folder = ARTIFACTS / "notifications"
    folder.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        name = f"author{width}"
        user = User.objects.create_user(username=name, password="a-long-password-1", email=f"{name}@example.com")
        record(user.pk, Event.VERSION_REJECTED, f"e2e:{name}:1", "my-bot v2 was rejected",
               text="crash (exit): SyntaxError: invalid syntax (main.py, line 3)", url="/bots/")
        record(user.pk, Event.TOURNAMENT_STARTED, f"e2e:{name}:2", "Tournament Winter Cup has started",
               text="Winter Cup has started.", url="/tournaments/")
        record(user.pk, Event.CHALLENGE_PLAYED, f"e2e:{name}:3", "Challenge played: my-bot vs greedy-bura",
               text="2 of 2 matches played; matches won: my-bot 1 – greedy-bura 1.", url="/bots/")
        context = browser.new_context(viewport={"width": width, "height": 800})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda msg, errors=errors: errors.append(msg.text) if msg.type == "error" else None)
        log_in(page, live_server.url, name)
        page.goto(f"{live_server.url}/bots/")
        bell = page.get_by_role("link", name="Notifications: 3 unread")
        assert bell.is_visible() and bell.locator(".bell-count").inner_text() == "3"
        box = bell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width  # in the header, on screen
        page.screenshot(path=str(folder / f"bell-{width}.png"))
        bell.click()
        page.wait_for_url("**/notifications/")
        assert page.locator("ul.notifications li.unread").count() == 3
        assert page.locator("ul.notifications .new").first.inner_text() == "new"
        page.screenshot(path=str(folder / f"inbox-{width}.png"), full_page=True)
        scroll, window = page.evaluate(MEASURE)
        assert scroll <= window, f"/notifications/ scrolls sideways at {width} px ({scroll} > {window})"
        page.goto(f"{live_server.url}/bots/")
        assert page.get_by_role("link", name="Notifications: none unread").is_visible()
        assert page.locator(".bell-count").count() == 0
        page.goto(f"{live_server.url}/profile/#notifications")
        page.fill("#notify-webhook_url", "http://127.0.0.1:9/hook")
        page.check("#notify-email")
        page.get_by_role("button", name="Save notification settings").click()
        secret = page.locator("#webhook-secret").inner_text()
        assert secret.startswith("whsec_")
        page.screenshot(path=str(folder / f"secret-{width}.png"), full_page=True)
        page.goto(f"{live_server.url}/profile/")
        assert secret not in page.content()
        page.locator("#notifications").screenshot(path=str(folder / f"settings-{width}.png"))
        scroll, window = page.evaluate(MEASURE)
        assert scroll <= window, f"/profile/ scrolls sideways at {width} px ({scroll} > {window})"
        # the webhook saved above: a notification now has a delivery, whose attempts are in the log
        told = record(user.pk, Event.BOT_SUSPENDED, f"e2e:{name}:4", "my-bot is suspended",
                      text="suspended from the ladder: version v2 ended 5 ladder matches in a row by crash")
        delivery = told.deliveries.get(channel=Delivery.Channel.WEBHOOK)
        Attempt.objects.create(delivery=delivery, user=user, number=1, ok=False, http_status=503,
                               error="the endpoint answered 503 Service Unavailable", milliseconds=41)
        Attempt.objects.create(delivery=delivery, user=user, number=2, ok=True, http_status=204, milliseconds=12)
        for path, shot in ((f"/notifications/{told.pk}/", "detail"), ("/notifications/deliveries/", "log")):
            page.goto(f"{live_server.url}{path}")
            assert "503 Service Unavailable" in page.inner_text("main")
            page.screenshot(path=str(folder / f"{shot}-{width}.png"), full_page=True)
            scroll, window = page.evaluate(MEASURE)
            assert scroll <= window, f"{path} scrolls sideways at {width} px ({scroll} > {window})"
        assert not errors, errors
        context.close()
