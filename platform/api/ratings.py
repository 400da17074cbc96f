"""The API of leaderboards, head-to-head results and rating histories."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import ApiView, error_response
from arena.games import all_presets
from bots.access import access_bot
from ratings.actions import leaderboard
from ratings.live import to_elo
from ratings.models import Rating, RatingSnapshot
from ratings.queries import head_to_head


class LeaderboardRowSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name")
    owner = serializers.CharField(source="bot.owner.username")
    version = serializers.IntegerField(source="version.number")
    rating = serializers.FloatField(source="official", allow_null=True, help_text="official rating (Elo scale)")
    interval = serializers.SerializerMethodField(help_text="± half the 95% interval")
    live = serializers.SerializerMethodField(help_text="live OpenSkill rating on the Elo scale")
    score_percent = serializers.FloatField(allow_null=True)
    rank = serializers.SerializerMethodField()
    remote = serializers.BooleanField(source="version.is_remote", help_text="played from its owner's machine "
                                      "(`arena connect`), not in the site's sandbox")

    class Meta:
        model = Rating
        fields = ["rank", "bot", "owner", "version", "remote", "rating", "interval", "provisional", "live", "games",
                  "wins", "draws", "losses", "score_percent", "last_played", "los_next"]

    def get_interval(self, row: Rating) -> float | None:
        return None if row.half_width is None else round(row.half_width, 1)

    def get_live(self, row: Rating) -> float:
        return round(to_elo(row.live_mu), 1)

    def get_rank(self, row: Rating) -> int | None:
        return self.context.get("ranks", {}).get(row.pk)


def check_preset(preset: str) -> str:
    if preset not in all_presets():
        raise NotFound(f"no preset {preset!r}")
    return preset


@extend_schema(summary="A preset's leaderboard (each bot's current version, best first)",
               parameters=[OpenApiParameter("search", str, description="bot name contains")])
class LeaderboardView(ApiView, generics.ListAPIView):
    serializer_class = LeaderboardRowSerializer
    permission_classes = [AllowAny]
    filter_backends: list = []

    def get_queryset(self):
        rows = leaderboard(check_preset(self.kwargs["preset"]))
        search = (self.request.query_params.get("search") or "").strip()
        return rows.filter(bot__name__icontains=search) if search else rows

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        offset = self.paginator.page.start_index() - 1 if page is not None else 0
        ranks = {row.pk: offset + i + 1 for i, row in enumerate(page)} if page is not None else {}
        data = LeaderboardRowSerializer(page, many=True, context={"ranks": ranks}).data
        return self.get_paginated_response(data)


HEAD_TO_HEAD = inline_serializer("HeadToHead", fields={
    "preset": serializers.CharField(), "a": serializers.CharField(), "b": serializers.CharField(),
    "matches": serializers.IntegerField(), "a_wins": serializers.IntegerField(), "draws": serializers.IntegerField(),
    "b_wins": serializers.IntegerField(), "a_score_percent": serializers.FloatField(allow_null=True)})


class HeadToHeadView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Ranked results between two bots on a preset (all their versions)",
                   parameters=[OpenApiParameter("a", str, required=True), OpenApiParameter("b", str, required=True),
                               OpenApiParameter("preset", str, required=True)],
                   responses={200: HEAD_TO_HEAD, 400: error_response("a query parameter is missing"),
                              404: error_response("no such bot or preset, or not one you may see")})
    def get(self, request):
        params = request.query_params
        missing = [name for name in ("a", "b", "preset") if not params.get(name)]
        if missing:
            raise ValidationError({name: ["this query parameter is required"] for name in missing})
        preset = check_preset(params["preset"])
        a, b = access_bot(request.user, params["a"]), access_bot(request.user, params["b"])
        return Response({"preset": preset, "a": a.name, "b": b.name, **head_to_head(a.pk, b.pk, preset)})


class HistoryRowSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number")

    class Meta:
        model = RatingSnapshot
        fields = ["at", "version", "rating", "low", "high", "games"]


@extend_schema(summary="A bot's official rating after every refit of a preset (for plots)")
class RatingHistoryView(ApiView, generics.ListAPIView):
    serializer_class = HistoryRowSerializer
    permission_classes = [AllowAny]
    filter_backends: list = []
    pagination_class = None

    def get_queryset(self):
        bot = access_bot(self.request.user, self.kwargs["name"])
        preset = check_preset(self.kwargs["preset"])
        return RatingSnapshot.objects.filter(bot=bot, preset=preset).select_related("version").order_by("at")[:2000]
