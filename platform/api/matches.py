"""The API of matches: list and filter, detail with seats and verdicts, replay, private logs, challenges."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Prefetch
from django.http import HttpResponse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import APIException, NotFound
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from api.schema import ApiView
from bots import blobs
from bots.access import access_bot, can_see_private
from bots.models import BotVersion
from config.api import reject_unknown_fields
from matches.access import SEED_KEYS, WHY, deal_embargo, detail_visible, seeds_visible, without_seeds
from matches.challenges import do_challenge
from matches.models import Match, Seat
from matches.reproduce import reproduce_command


class SeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="version.bot.name", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    has_log = serializers.SerializerMethodField(help_text="the bot's stderr is stored (its owner may download it)")
    detail = serializers.SerializerMethodField(help_text="why the seat's verdict; a validation match's: owner only")

    class Meta:
        model = Seat
        fields = ["seat", "bot", "version", "verdict", "code", "detail", "rank", "score", "decisions", "resources",
                  "has_log"]
        read_only_fields = fields

    def get_has_log(self, seat: Seat) -> bool:
        return bool(seat.log_sha256)

    def get_detail(self, seat: Seat) -> str | None:
        request = self.context.get("request")
        return seat.detail if detail_visible(request.user if request else None, seat) else None


JS_SAFE_INTEGER = 2**53 - 1


def js_safe(value: Any, key: str | None = None) -> Any:
    """A stored result as JSON every client reads exactly: seeds always as text (one type, whatever their
    size), and any other integer past 2**53 as text too (JavaScript would round it)."""
    if isinstance(value, dict):
        return {k: js_safe(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [js_safe(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and (key in SEED_KEYS or abs(value) > JS_SAFE_INTEGER):
        return str(value)
    return value


class MatchSerializer(serializers.ModelSerializer):
    """A match. Its seeds (and the command that uses them) are empty while its deal is in play, for every kind
    of match and every reader: a seed rebuilds every hand (docs/matches.md, "What is hidden until when")."""

    seats = SeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField(help_text="the deal's seed (64 bits, as text); empty until every "
                                                       "match of the deal has ended")
    base_seed = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()
    reproduce = serializers.SerializerMethodField(help_text="the arena play command that replays this match; "
                                                            "without --seed until every match of the deal has ended")

    class Meta:
        model = Match
        fields = ["id", "kind", "status", "ranked", "game", "preset", "overrides", "time_control", "base_seed",
                  "seed", "duplicate_set", "rotation", "attempts", "created", "started", "finished", "result",
                  "replay_size", "failure", "seats", "reproduce"]
        read_only_fields = fields

    def get_seed(self, match: Match) -> str:
        if not seeds_visible(match):
            return ""
        return str(match.seed)  # a u64: as text, since JSON numbers above 2**53 lose digits in browsers

    @extend_schema_field(serializers.CharField(help_text="what `arena play --seed` takes (63 bits, as text); "
                                                         "empty until every match of the deal has ended"))
    def get_base_seed(self, match: Match) -> str:
        if not seeds_visible(match):
            return ""
        return str(match.base_seed)  # 63 bits, as text for the same reason

    @extend_schema_field(serializers.JSONField(allow_null=True, help_text="the referee's result; seeds as text, "
                                                                         "and left out while the deal is in play"))
    def get_result(self, match: Match) -> dict[str, Any] | None:
        if match.result is None:
            return None
        return js_safe(match.result if seeds_visible(match) else without_seeds(match.result))

    def get_reproduce(self, match: Match) -> str:
        return reproduce_command(match)


class MatchFilter(django_filters.FilterSet):
    bot = django_filters.CharFilter(method="filter_bot")
    version = django_filters.NumberFilter(method="filter_version", help_text="with bot: that bot's version number")
    since = django_filters.IsoDateTimeFilter(field_name="created", lookup_expr="gte")
    until = django_filters.IsoDateTimeFilter(field_name="created", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["kind", "status", "preset", "game", "ranked", "bot", "version", "since", "until", "duplicate_set"]

    def filter_bot(self, queryset, name, value):
        versions = BotVersion.objects.filter(bot__name__iexact=value)
        number = self.data.get("version")
        if number and str(number).isdigit():
            versions = versions.filter(number=int(number))
        return self._through_seats(queryset, versions)

    def filter_version(self, queryset, name, value):
        if self.data.get("bot"):
            return queryset  # narrowed together with the bot
        return self._through_seats(queryset, BotVersion.objects.filter(number=value))

    @staticmethod
    def _through_seats(queryset, versions):
        # The version ids first (a handful): the planner then walks the seat index (version, match) for them
        # instead of scanning a million matches backwards for the few that qualify.
        ids = list(versions.values_list("pk", flat=True)[:10_000])
        return queryset.filter(pk__in=Seat.objects.filter(version_id__in=ids).values("match_id"))


def match_queryset():
    """Matches with their seats and whether their deal is in play, in a fixed number of queries."""
    seats = Seat.objects.select_related("version__bot").order_by("seat")
    return Match.objects.with_deal_in_play().prefetch_related(Prefetch("seats", queryset=seats))


class Embargoed(APIException):
    """What shows a deal's cards, asked for while a match of that deal is still to end: not there yet."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "embargoed"


class NewestFirst(CursorPagination):
    """Matches pile up by the million: a cursor needs no count of them, and stays stable while new ones come."""

    ordering = "-id"
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


@extend_schema(summary="List matches, newest first (filter by bot, version, preset, kind, status, date)")
class MatchListView(ApiView, generics.ListAPIView):
    serializer_class = MatchSerializer
    permission_classes = [AllowAny]
    filterset_class = MatchFilter
    filter_backends = [DjangoFilterBackend]
    pagination_class = NewestFirst

    def get_queryset(self):
        return match_queryset()


class MatchDetailView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=MatchSerializer, summary="A match with its seats and verdicts")
    def get(self, request, pk: int):
        match = match_queryset().filter(pk=pk).first()
        if match is None:
            raise NotFound("no such match")
        return Response(MatchSerializer(match, context={"request": request}).data)


class ReplayView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "application/gzip"): OpenApiTypes.BINARY},
                   summary="The replay (gzip JSON; `arena replay FILE` verifies and narrates it); 404 `embargoed` "
                           "until every match of its deal has ended")
    def get(self, request, pk: int):
        match = Match.objects.filter(pk=pk, status=Match.Status.FINISHED).first()
        if match is None or not match.replay_sha256:
            raise NotFound("no replay for this match")
        if match.kind == Match.Kind.VALIDATION and not any(
                can_see_private(request.user, s.version.bot) for s in match.seats.select_related("version__bot")):
            raise NotFound("no replay for this match")  # a validation match is its bot's owner's business
        embargo = deal_embargo(match)
        if embargo:
            raise Embargoed(f"the replay of match {match.pk} is {embargo}: {WHY}")
        response = HttpResponse(blobs.get("replays", match.replay_sha256), content_type="application/gzip")
        response["Content-Disposition"] = f'attachment; filename="{match.preset}-{match.pk}.json.gz"'
        return response


class SeatLogView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR},
                   summary="A seat's stderr (the bot's owner and staff only; 404 for everyone else, and 404 "
                           "`embargoed` until every match of its deal has ended)")
    def get(self, request, pk: int, seat: int):
        row = Seat.objects.select_related("version__bot", "match").filter(match_id=pk, seat=seat).first()
        if row is None or not can_see_private(request.user, row.version.bot) or not row.log_sha256:
            raise NotFound("no such log")
        # A bot may print its hand, which is its opponent's hand in the deal's other rotation.
        embargo = deal_embargo(row.match)
        if embargo:
            raise Embargoed(f"the log of seat {seat} of match {pk} is {embargo}: {WHY}")
        return HttpResponse(blobs.get("logs", row.log_sha256), content_type="text/plain; charset=utf-8")


class ChallengeSerializer(serializers.Serializer):
    bot = serializers.CharField(max_length=40, help_text="one of your bots")
    opponent = serializers.CharField(max_length=40, help_text="any public bot of the same game")
    preset = serializers.CharField(max_length=40, required=False, help_text="default: the game's first preset")


class ChallengeView(ApiView, APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "challenge"

    @extend_schema(request=ChallengeSerializer, responses={201: MatchSerializer(many=True)},
                   summary="Challenge: an unranked duplicate set between your bot and another")
    def post(self, request):
        reject_unknown_fields(ChallengeSerializer, request.data)
        form = ChallengeSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        mine = access_bot(request.user, form.validated_data["bot"], for_change=True)
        other = access_bot(request.user, form.validated_data["opponent"])
        matches = do_challenge(request.user, mine, other, form.validated_data.get("preset"))
        fresh = match_queryset().filter(pk__in=[m.pk for m in matches]).order_by("rotation")
        return Response(MatchSerializer(fresh, many=True, context={"request": request}).data,
                        status=status.HTTP_201_CREATED)
