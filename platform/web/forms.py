from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import User
from bots.models import GAME_CHOICES, NAME_HELP


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="optional; for password resets")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class NewBotForm(forms.Form):
    name = forms.CharField(max_length=40, help_text=NAME_HELP)
    game = forms.ChoiceField(choices=GAME_CHOICES)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=2000)
    file = forms.FileField(help_text="a script (.py, .js, .pl or #!) or a .zip of the bot's folder")


class UploadForm(forms.Form):
    file = forms.FileField(help_text="a script (.py, .js, .pl or #!) or a .zip of the bot's folder")


class NewTokenForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="what the token is for, e.g. 'laptop'")
    expires_in_days = forms.IntegerField(min_value=1, max_value=3650, required=False,
                                         help_text="empty: never expires")
