"""The episodes API: finished public matches whose replays anyone may download, for learning from them.

An episode is a match the open data would publish (opendata.select: ladder, challenge and tournament matches,
no validation or casual one) whose deal has been played out: its replay is public at
``/api/v1/matches/ID/replay/``, and ``replay_sha256`` is the SHA-256 of exactly those bytes, so a client
verifies every download (``arena episodes``, docs/data.md). Listed newest first through a cursor: stable while
new matches finish, and no count of millions of rows.
"""

from __future__ import annotations

import django_filters
from django.db.models import Prefetch
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny
from rest_framework.reverse import reverse

from api.schema import ApiView
from arena.games import all_presets
from bots.models import REMOTE_RUNTIME, Bot, BotVersion
from matches.models import Match, Seat
from opendata.select import public_matches


class EpisodeSeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="version.bot.name")
    version = serializers.IntegerField(source="version.number")
    owner = serializers.CharField(source="version.bot.owner.username")
    remote = serializers.SerializerMethodField(help_text="played from its owner's machine over `arena connect`")

    class Meta:
        model = Seat
        fields = ["seat", "bot", "version", "owner", "remote", "rank", "score", "verdict", "code"]
        read_only_fields = fields

    def get_remote(self, seat: Seat) -> bool:
        return seat.version.runtime == REMOTE_RUNTIME


class EpisodeSerializer(serializers.ModelSerializer):
    seats = EpisodeSeatSerializer(many=True, read_only=True)
    ended_by = serializers.SerializerMethodField(help_text="rules, forfeit or decision-limit (docs/replay.md)")
    replay_url = serializers.SerializerMethodField(help_text="the replay (.json.gz); its SHA-256 is replay_sha256")

    class Meta:
        model = Match
        fields = ["id", "game", "preset", "kind", "ranked", "overrides", "started", "finished", "duplicate_set",
                  "rotation", "ended_by", "seats", "replay_sha256", "replay_size", "replay_url"]
        read_only_fields = fields

    def get_ended_by(self, match: Match) -> str | None:
        return (match.result or {}).get("ended_by")

    def get_replay_url(self, match: Match) -> str:
        return reverse("api-replay", args=[match.pk], request=self.context.get("request"))


class EpisodeFilter(django_filters.FilterSet):
    bot = django_filters.CharFilter(method="filter_bot", help_text="a bot's name: the matches it sat in")
    version = django_filters.NumberFilter(method="filter_version", help_text="with bot: that version only")
    preset = django_filters.CharFilter(method="filter_preset")
    since = django_filters.IsoDateTimeFilter(field_name="finished", lookup_expr="gte",
                                             help_text="finished at or after (ISO 8601 date or time, UTC)")
    until = django_filters.IsoDateTimeFilter(field_name="finished", lookup_expr="lt",
                                             help_text="finished before (ISO 8601 date or time, UTC)")

    class Meta:
        model = Match
        fields = ["bot", "version", "preset", "since", "until"]

    def filter_bot(self, queryset, name, value):
        bot = Bot.objects.filter(name__iexact=value, kind=Bot.Kind.BOT).first()
        if bot is None:
            raise ValidationError({"bot": [f"no bot is named {value!r}"]})
        versions = BotVersion.objects.filter(bot=bot)
        number = self.form.cleaned_data.get("version")
        if number is not None:
            versions = versions.filter(number=number)
            if not versions.exists():
                raise ValidationError({"version": [f"{bot.name} has no version {number}"]})
        # The bot's version ids first (a handful): the planner then walks the seat index (version, match).
        ids = list(versions.values_list("pk", flat=True))
        return queryset.filter(pk__in=Seat.objects.filter(version_id__in=ids).values("match_id"))

    def filter_version(self, queryset, name, value):
        if not self.form.cleaned_data.get("bot"):
            raise ValidationError({"version": ["a version number needs bot= too"]})
        return queryset  # narrowed with the bot

    def filter_preset(self, queryset, name, value):
        if value not in all_presets():
            raise ValidationError({"preset": [f"unknown preset {value!r}; presets are: {', '.join(all_presets())}"]})
        return queryset.filter(preset=value)


class NewestFirst(CursorPagination):
    ordering = "-id"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500


@extend_schema(summary="List episodes: finished public matches out of embargo, with their replays' hashes "
                       "(filter by bot, version, preset, finished since/until)")
class EpisodeListView(ApiView, generics.ListAPIView):
    serializer_class = EpisodeSerializer
    permission_classes = [AllowAny]
    filterset_class = EpisodeFilter
    filter_backends = [DjangoFilterBackend]
    pagination_class = NewestFirst

    def get_queryset(self):
        seats = Seat.objects.select_related("version__bot__owner").order_by("seat")
        return (public_matches().filter(deal_still_in_play=False)
                .prefetch_related(Prefetch("seats", queryset=seats)))
