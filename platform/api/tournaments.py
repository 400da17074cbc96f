"""The API of tournaments and version tests."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from api.schema import ApiView
from bots.access import access_bot, access_version
from config.api import reject_unknown_fields
from matches.time_controls import BOUNDS, TimeControlError, check_time_control
from tournaments import standings as tables
from tournaments.actions import do_create_tournament, do_host_action, do_join, do_leave
from tournaments.models import Tournament, VersionTest
from tournaments.queries import access_tournament, tournament_queryset
from tournaments.versiontests import do_start_test, do_stop_test, progress


class TournamentSerializer(serializers.ModelSerializer):
    host = serializers.CharField(source="host.username", read_only=True)
    entries = serializers.IntegerField(source="entry_count", read_only=True)
    invite_code = serializers.SerializerMethodField(help_text="shown to the host only")

    class Meta:
        model = Tournament
        fields = ["id", "name", "description", "host", "preset", "overrides", "format", "rounds", "deals",
                  "time_control", "live_delay_seconds", "remote_bots", "entry", "invite_code", "max_entries",
                  "entry_deadline", "starts_at", "status",
                  "note", "entries", "created", "started", "finished"]
        read_only_fields = fields

    def get_invite_code(self, t: Tournament) -> str | None:
        request = self.context.get("request")
        return t.invite_code if request and request.user.is_authenticated and request.user.pk == t.host_id else None


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    description = serializers.CharField(max_length=4000, required=False, allow_blank=True, default="")
    preset = serializers.CharField(max_length=40)
    overrides = serializers.DictField(child=serializers.CharField(max_length=40), required=False, default=dict)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    rounds = serializers.IntegerField(min_value=1, max_value=50, required=False, allow_null=True, default=None)
    deals = serializers.IntegerField(min_value=1, max_value=20, required=False, default=1,
                                     help_text="duplicate sets per pairing: each plays the same cards once in "
                                               "every seat rotation")
    time_control = serializers.DictField(child=serializers.JSONField(), required=False, default=dict,
                                         help_text="milliseconds: " + ", ".join(
                                             f"{name} {low}–{high}" for name, (low, high) in BOUNDS.items()))
    live_delay_seconds = serializers.IntegerField(
        min_value=0, max_value=3600, required=False, allow_null=True, default=None,
        help_text="how far behind the play its matches' live views run; null: the site's default")
    remote_bots = serializers.BooleanField(required=False, default=True,
                                           help_text="false: remote versions (arena connect) may not enter")
    entry = serializers.ChoiceField(choices=Tournament.Entry.choices, required=False, default="open")
    max_entries = serializers.IntegerField(min_value=2, max_value=1024, required=False, default=64)
    entry_deadline = serializers.DateTimeField(required=False, allow_null=True, default=None)
    starts_at = serializers.DateTimeField()

    def validate_time_control(self, value: dict) -> dict:
        try:  # the one check every way in shares (the tournament page's too)
            return check_time_control(value).to_dict()
        except TimeControlError as err:
            raise serializers.ValidationError({err.field: [str(err)]}) from None


class JoinSerializer(serializers.Serializer):
    bot = serializers.CharField(max_length=40)
    invite_code = serializers.CharField(max_length=32, required=False, allow_blank=True, default="")


class TournamentListView(ApiView, generics.ListCreateAPIView):
    serializer_class = TournamentSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    filterset_fields = ["status", "preset", "format"]
    ordering_fields = ["starts_at", "created"]
    ordering = ["-starts_at"]
    throttle_scope = "write"

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.request.method == "POST" else []

    def get_queryset(self):
        return tournament_queryset()

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer},
                   summary="Host a tournament")
    def post(self, request, *args, **kwargs):
        reject_unknown_fields(TournamentCreateSerializer, request.data)
        form = TournamentCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        t = do_create_tournament(request.user, **form.validated_data)
        return Response(TournamentSerializer(access_tournament(t.pk), context={"request": request}).data,
                        status=status.HTTP_201_CREATED)


class TournamentDetailView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=TournamentSerializer, summary="A tournament")
    def get(self, request, pk: int):
        return Response(TournamentSerializer(access_tournament(pk), context={"request": request}).data)


class JoinView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinSerializer, responses={201: TournamentSerializer}, summary="Join with one of my bots")
    def post(self, request, pk: int):
        t = access_tournament(pk)
        reject_unknown_fields(JoinSerializer, request.data)
        form = JoinSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        bot = access_bot(request.user, form.validated_data["bot"])
        do_join(request.user, t, bot, form.validated_data["invite_code"])
        return Response(TournamentSerializer(access_tournament(pk), context={"request": request}).data,
                        status=status.HTTP_201_CREATED)


class LeaveView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinSerializer, responses=TournamentSerializer, summary="Leave before the start")
    def post(self, request, pk: int):
        t = access_tournament(pk)
        reject_unknown_fields(JoinSerializer, request.data)
        form = JoinSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        do_leave(request.user, t, access_bot(request.user, form.validated_data["bot"]))
        return Response(TournamentSerializer(access_tournament(pk), context={"request": request}).data)


class HostActionView(ApiView, APIView):
    permission_classes = [IsAuthenticated]
    action_name = ""

    @extend_schema(request=None, responses=TournamentSerializer, summary="Host control: start, pause, resume, cancel")
    def post(self, request, pk: int):
        t = access_tournament(pk)
        if request.user.pk != t.host_id:
            raise NotFound("no such tournament")  # to others, the host's controls do not exist
        do_host_action(request.user, t, self.action_name)
        return Response(TournamentSerializer(access_tournament(pk), context={"request": request}).data)


def host_action(name: str):
    return type(f"{name.title()}View", (HostActionView,), {"action_name": name}).as_view()


STANDING = inline_serializer("Standing", many=True, fields={
    "place": serializers.IntegerField(), "bot": serializers.CharField(), "owner": serializers.CharField(),
    "version": serializers.IntegerField(), "seed": serializers.IntegerField(), "points": serializers.FloatField(),
    "buchholz": serializers.FloatField(), "sonneborn_berger": serializers.FloatField(),
    "head_to_head": serializers.FloatField(), "point_difference": serializers.FloatField(),
    "played": serializers.IntegerField()})


class StandingsView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=STANDING, summary="Standings with tie-breaks (computed from the stored results)")
    def get(self, request, pk: int):
        return Response([{k: v for k, v in row.items() if k != "entry"}
                         for row in tables.standings(access_tournament(pk))])


class CrosstableView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=inline_serializer("Crosstable", fields={
        "bots": serializers.ListField(child=serializers.CharField()),
        "cells": serializers.ListField(child=serializers.ListField(child=serializers.JSONField()))}),
        summary="Crosstable: each row's points against each column, in standings order")
    def get(self, request, pk: int):
        t = access_tournament(pk)
        rows = tables.standings(t)
        order = [r["entry"] for r in rows]
        cells = tables.crosstable(t)["cells"]
        return Response({"bots": [r["bot"] for r in rows],
                         "cells": [[cells.get(a, {}).get(b) if a != b else None for b in order] for a in order]})


ROUND = inline_serializer("TournamentRound", many=True, fields={
    "number": serializers.IntegerField(), "finished": serializers.BooleanField(),
    "pairings": serializers.ListField(child=serializers.DictField())})


class RoundsView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=ROUND, summary="Rounds and pairings (a knockout's rounds are its bracket)")
    def get(self, request, pk: int):
        return Response(tables.rounds(access_tournament(pk)))


class VersionTestSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="candidate.bot.name", read_only=True)
    candidate = serializers.IntegerField(source="candidate.number", read_only=True)
    base = serializers.IntegerField(source="base.number", read_only=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = VersionTest
        fields = ["id", "bot", "candidate", "base", "preset", "elo0", "elo1", "alpha", "beta", "max_pairs",
                  "status", "created", "finished", "progress"]
        read_only_fields = fields

    def get_progress(self, test: VersionTest) -> dict:
        return progress(test)


class VersionTestCreateSerializer(serializers.Serializer):
    bot = serializers.CharField(max_length=40, help_text="one of your bots")
    candidate = serializers.IntegerField(min_value=1, help_text="the new version's number")
    base = serializers.IntegerField(min_value=1, help_text="the version to beat (of the same bot)")
    preset = serializers.CharField(max_length=40)
    elo0 = serializers.FloatField(required=False, default=0.0)
    elo1 = serializers.FloatField(required=False, default=10.0)
    alpha = serializers.FloatField(required=False, default=0.05)
    beta = serializers.FloatField(required=False, default=0.05)
    max_pairs = serializers.IntegerField(min_value=1, max_value=100_000, required=False, default=2000)


class VersionTestListView(ApiView, generics.ListCreateAPIView):
    serializer_class = VersionTestSerializer
    permission_classes = [IsAuthenticated]
    filter_backends: list = []
    throttle_scope = "challenge"

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.request.method == "POST" else []

    def get_queryset(self):
        return VersionTest.objects.filter(owner=self.request.user).select_related("candidate__bot", "base")

    @extend_schema(request=VersionTestCreateSerializer, responses={201: VersionTestSerializer},
                   summary="Start an SPRT version test")
    def post(self, request, *args, **kwargs):
        reject_unknown_fields(VersionTestCreateSerializer, request.data)
        form = VersionTestCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        bot = access_bot(request.user, data.pop("bot"), for_change=True)
        candidate = access_version(request.user, bot, data.pop("candidate"))
        base = access_version(request.user, bot, data.pop("base"))
        test = do_start_test(request.user, candidate, base, data.pop("preset"), **data)
        return Response(VersionTestSerializer(test).data, status=status.HTTP_201_CREATED)


class VersionTestDetailView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    def test_of(self, request, pk: int) -> VersionTest:
        test = VersionTest.objects.filter(pk=pk, owner=request.user).select_related("candidate__bot", "base").first()
        if test is None:
            raise NotFound("no such version test")
        return test

    @extend_schema(responses=VersionTestSerializer, summary="A version test and its progress (LLR, bounds, pairs)")
    def get(self, request, pk: int):
        return Response(VersionTestSerializer(self.test_of(request, pk)).data)


class VersionTestStopView(VersionTestDetailView):
    @extend_schema(request=None, responses=VersionTestSerializer, summary="Stop a version test")
    def post(self, request, pk: int):
        return Response(VersionTestSerializer(do_stop_test(self.test_of(request, pk))).data)
