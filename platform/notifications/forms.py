from __future__ import annotations

from django import forms

from notifications.models import Preferences


class PreferencesForm(forms.ModelForm):
    webhook_url = forms.URLField(
        label="Webhook URL", required=False, max_length=500, assume_scheme="https",
        help_text="We POST each notification here as JSON, signed with HMAC-SHA256 "
                  "(<a href=\"/docs/notifications/\">how to check it</a>). Empty: no webhook.")

    class Meta:
        model = Preferences
        fields = ["email", "webhook_url", "webhook_format"]
        labels = {"email": "E-mail me each notification", "webhook_format": "Webhook format"}
        help_texts = {
            "email": "",
            "webhook_format": "Discord-compatible: paste a Discord channel's webhook URL.",
        }

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "notify-%s")
        super().__init__(*args, **kwargs)
        self.fields["webhook_url"].widget.attrs["placeholder"] = "https://example.com/kozyr-hook"
