"""Deleting a bot from its page: a confirmation that says what deleting does, then a POST (bots.do_delete_bot)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from bots.access import access_bot
from bots.actions import BotError, do_delete_bot
from ladder.withdrawal import DELETED_CANCELS
from matches.models import Match


class DeleteForm(forms.Form):
    confirm = forms.CharField(label="Type the bot's name to confirm", max_length=40,
                              widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none",
                                                            "spellcheck": "false"}))

    def __init__(self, name: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name

    def clean_confirm(self) -> str:
        typed = self.cleaned_data["confirm"].strip()
        if typed != self.name:
            raise forms.ValidationError(f"type {self.name} exactly: you typed {typed!r}")
        return typed


@login_required
def bot_delete(request, name: str):
    bot = access_bot(request.user, name, for_change=True)  # 404 to anyone but its owner
    form = DeleteForm(bot.name, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            do_delete_bot(bot)
        except BotError as err:
            form.add_error(None, str(err))
        else:
            messages.success(request, f"{bot.name} is deleted. Its matches and rating history stay; its name stays "
                                      f"taken.")
            return redirect("user", username=request.user.username)
    queued = (Match.objects.filter(kind__in=DELETED_CANCELS, status=Match.Status.QUEUED, seats__version__bot=bot)
              .distinct().count())
    return render(request, "web/bot_delete.html", {"bot": bot, "form": form, "queued": queued})
