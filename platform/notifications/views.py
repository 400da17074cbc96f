"""The notification pages: the inbox (read on opening), one notification with its deliveries, the delivery
log, and the settings form's actions (the form itself is on the profile page). Each shows the signed-in user's
own rows only: another user's notification is 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from notifications.actions import do_mark_read, do_rotate_secret, do_save_preferences, preferences
from notifications.forms import PreferencesForm
from notifications.models import Attempt, Notification
from notifications.webhooks import WebhookError

PAGE = 50
LOG_ROWS = 100


@login_required
def inbox(request):
    rows = Notification.objects.filter(user=request.user).order_by("-pk")
    before = request.GET.get("before", "")
    if before.isdigit():
        rows = rows.filter(pk__lt=int(before))
    shown = list(rows.only("pk", "event", "title", "text", "url", "created", "read_at")[: PAGE + 1])
    more = len(shown) > PAGE
    shown = shown[:PAGE]
    # Opening the page reads what it shows: the bell's count drops on the next page; "new" marks them here.
    do_mark_read(request.user, [n.pk for n in shown if n.read_at is None])
    return render(request, "notifications/inbox.html",
                  {"notifications": shown, "next_before": shown[-1].pk if more else None})


@login_required
@require_POST
def mark_all_read(request):
    count = do_mark_read(request.user)
    messages.success(request, f"{count} notification{'' if count == 1 else 's'} marked read.")
    return redirect("notifications")


@login_required
def notification_detail(request, pk: int):
    notification = get_object_or_404(Notification, pk=pk, user=request.user)
    do_mark_read(request.user, [notification.pk])
    deliveries = notification.deliveries.prefetch_related("log").order_by("channel")
    return render(request, "notifications/detail.html", {"n": notification, "deliveries": deliveries})


@login_required
def delivery_log(request):
    attempts = (Attempt.objects.filter(user=request.user).select_related("delivery__notification")
                .order_by("-at", "-pk")[:LOG_ROWS])
    return render(request, "notifications/deliveries.html", {"attempts": attempts, "rows": LOG_ROWS})


@login_required
def save_settings(request):
    if request.method != "POST":
        return redirect("/profile/#notifications")
    form = PreferencesForm(request.POST, instance=preferences(request.user))
    secret = None
    if form.is_valid():
        try:
            secret = do_save_preferences(request.user, **{k: form.cleaned_data[k] for k in
                                                          ("email", "webhook_url", "webhook_format")})
        except WebhookError as err:
            form.add_error(err.field, str(err))
    if not form.is_valid():
        return render(request, "notifications/settings_page.html", {"form": form}, status=400)
    if secret:
        return render(request, "notifications/secret.html", {"secret": secret, "url": form.cleaned_data["webhook_url"]})
    messages.success(request, "Notification settings saved.")
    return redirect("/profile/#notifications")


@login_required
@require_POST
def rotate_secret(request):
    secret = do_rotate_secret(request.user)
    if secret is None:
        messages.error(request, "There is no webhook to rotate the secret of: add a webhook URL first.")
        return redirect("/profile/#notifications")
    return render(request, "notifications/secret.html", {"secret": secret, "url": preferences(request.user).webhook_url,
                                                         "rotated": True})
