from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import User
from bots.models import GAME_CHOICES, NAME_HELP, presets_of
from bots.upload import UPLOAD_HELP

PRESETS_HELP = ("the presets your bot plays, of its game; none ticked: every preset of the game, and any added "
                "later. Burkozel and Echki are presets of the Bura family: a bura bot with none ticked plays "
                "bura, bura-3p, burkozel, burkozel-pairs and echki-6")


def preset_choices() -> list:
    """Each game's presets as a group of its own."""
    return [(game, [(p, p) for p in presets_of(game)]) for game, _ in GAME_CHOICES]


class SignUpForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="optional; for password resets")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class NewBotForm(forms.Form):
    name = forms.CharField(max_length=40, help_text=NAME_HELP)
    game = forms.ChoiceField(choices=GAME_CHOICES)
    presets = forms.MultipleChoiceField(choices=preset_choices, required=False, help_text=PRESETS_HELP,
                                        widget=forms.CheckboxSelectMultiple(attrs={"class": "checks"}))
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=2000)
    file = forms.FileField(help_text=f"{UPLOAD_HELP}.")
    open_data = forms.BooleanField(
        required=False, initial=True, label="Open data",
        help_text='Put its public matches in the monthly <a href="/data/">open-data dumps</a> (on by default, as '
                  'lichess does; <code>PATCH /api/v1/bots/NAME/ {"open_data": false}</code> changes it later, '
                  'for every dump built after)')

    def clean(self):
        data = super().clean()
        game, chosen = data.get("game"), data.get("presets") or []
        if game:
            wrong = [p for p in chosen if p not in presets_of(game)]
            if wrong:
                self.add_error("presets", f"{', '.join(wrong)}: not a preset of {game}; {game}'s presets are "
                                          f"{', '.join(presets_of(game))}")
        return data


class UploadForm(forms.Form):
    file = forms.FileField(help_text=UPLOAD_HELP)


class NewTokenForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="what the token is for, e.g. 'laptop'")
    expires_in_days = forms.IntegerField(min_value=1, max_value=3650, required=False,
                                         help_text="empty: never expires")


class EntrantForm(forms.Form):
    """A private tournament's host adds a bot by name (anyone's bot of the tournament's game and preset)."""

    bot = forms.CharField(max_length=40, label="Add a bot")

    def __init__(self, *args, game: str, preset: str, **kwargs):
        super().__init__(*args, auto_id="entrant-%s", **kwargs)
        self.fields["bot"].help_text = (f"the name of any active {game} bot that plays {preset}, yours or another "
                                        f"user's; its current validated version is frozen at the start")
        self.fields["bot"].widget.attrs.update({"list": "entrant-choices", "autocomplete": "off",
                                                "autocapitalize": "none", "spellcheck": "false"})
