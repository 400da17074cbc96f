"""The API of bots and versions: public lists and details; owners create, update, upload and retire."""

from __future__ import annotations

import django_filters
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import limits
from accounts.limits import ClientAddressThrottle, RateLimited, throttled
from api.schema import ApiView, error_response
from arena.games import all_presets
from bots import blobs
from bots.access import access_bot, access_version, can_see_private
from bots.actions import do_create_bot, do_delete_bot, do_retire_version, do_update_bot
from bots.models import GAME_CHOICES, NAME_HELP, Bot, BotVersion
from bots.upload import UPLOAD_HELP, check_upload, max_upload_bytes, read_limited
from config.api import reject_unknown_fields
from config.errors import ActionError
from matches.validation import do_upload_version, validation_links

OPEN_DATA_HELP = ("its public matches go into the monthly open-data dumps (/data/, docs/data.md); default true. "
                  "A change applies from the next dump built on")


class VersionSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name", read_only=True)
    validation_match = serializers.IntegerField(source="validation_match_id", read_only=True, allow_null=True)
    reason = serializers.SerializerMethodField(help_text="why validation rejected it (its owner only)")
    validation_status = serializers.SerializerMethodField(
        help_text="its validation match's status (queued, running, finished, failed); null for a house bot")

    class Meta:
        model = BotVersion
        fields = ["bot", "number", "status", "retired", "runtime", "language", "size", "filename", "sha256", "builtin",
                  "created", "validated_at", "validation_match", "validation_status", "reason"]
        read_only_fields = fields

    def get_validation_status(self, version: BotVersion) -> str | None:
        match = version.validation_match
        return match.status if match is not None else None

    def get_reason(self, version: BotVersion) -> str | None:
        request = self.context.get("request")
        return version.reason if request and can_see_private(request.user, version.bot) else None


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    current_version = serializers.IntegerField(source="current_version.number", read_only=True, allow_null=True)
    plays = serializers.ListField(child=serializers.CharField(), read_only=True)
    is_house = serializers.BooleanField(read_only=True)
    suspended = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = ["name", "game", "owner", "description", "presets", "plays", "active", "open_data", "is_house",
                  "suspended", "current_version", "created", "updated", "deleted"]
        read_only_fields = ["owner", "plays", "is_house", "suspended", "current_version", "created", "updated",
                            "deleted"]
        extra_kwargs = {"deleted": {"help_text": "when its owner deleted it: a tombstone that plays no more, whose "
                                                 "matches and name stay; null for a bot in use"}}

    def get_suspended(self, bot: Bot) -> str | None:
        return bot.suspended_reason or None


class BotCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40, help_text=NAME_HELP)
    game = serializers.ChoiceField(choices=GAME_CHOICES)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
    presets = serializers.ListField(child=serializers.CharField(max_length=40), required=False, default=list,
                                    help_text="presets of the game it plays; empty: all")
    open_data = serializers.BooleanField(required=False, default=True, help_text=OPEN_DATA_HELP)


class BotUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40, required=False, help_text=NAME_HELP)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    presets = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
    active = serializers.BooleanField(required=False, help_text="false takes the bot off the ladder")
    open_data = serializers.BooleanField(required=False, help_text=OPEN_DATA_HELP)


def set_open_data(bot: Bot, value: bool | None) -> None:
    """The author's choice about the open-data dumps (docs/data.md): read by the next dump built."""
    if value is not None and value != bot.open_data:
        bot.open_data = value
        bot.save(update_fields=["open_data", "updated"])


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text=UPLOAD_HELP)


class BotFilter(django_filters.FilterSet):
    owner = django_filters.CharFilter(field_name="owner__username", lookup_expr="iexact")
    search = django_filters.CharFilter(field_name="name", lookup_expr="icontains")
    preset = django_filters.CharFilter(method="filter_preset")

    class Meta:
        model = Bot
        fields = ["game", "active", "owner", "search", "preset"]

    def filter_preset(self, queryset, name, value):
        game = all_presets().get(value, (None,))[0]
        if game is None:
            return queryset.none()
        # JSON containment is not portable to SQLite; a bot lists a handful of presets, so read them.
        chosen = [pk for pk, presets in queryset.filter(game=game).values_list("pk", "presets")
                  if not presets or value in presets]
        return queryset.filter(pk__in=chosen)


@extend_schema_view(get=extend_schema(summary="List bots (public)"),
                    post=extend_schema(summary="Create a bot", request=BotCreateSerializer,
                                       responses={201: BotSerializer}))
class BotListView(ApiView, generics.ListCreateAPIView):
    serializer_class = BotSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    filterset_class = BotFilter
    ordering_fields = ["name", "created", "updated"]
    ordering = ["name"]
    throttle_scope = "write"

    def get_throttles(self):
        return [ClientAddressThrottle()] if self.request.method == "POST" else []

    def get_queryset(self):  # a deleted bot is on no list (its own address still answers, as a tombstone)
        return Bot.objects.filter(kind=Bot.Kind.BOT, deleted__isnull=True).select_related("owner", "current_version")

    def create(self, request, *args, **kwargs):
        reject_unknown_fields(BotCreateSerializer, request.data)
        form = BotCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:  # the same allowance as /bots/new/; only bots really created spend it
            spent = limits.spend(limits.bot_creations(), request.user.pk)
        except RateLimited as err:
            raise throttled(err) from None
        open_data = form.validated_data.pop("open_data")
        try:
            bot = do_create_bot(request.user, **form.validated_data)
        except ActionError:
            limits.give_back(limits.bot_creations(), request.user.pk, spent)  # no bot was made
            raise
        set_open_data(bot, open_data)
        return Response(BotSerializer(bot, context={"request": request}).data, status=status.HTTP_201_CREATED)


class BotDetailView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]
    throttle_scope = "write"

    def get_throttles(self):
        return [ClientAddressThrottle()] if self.request.method != "GET" else []

    @extend_schema(responses=BotSerializer, summary="A bot")
    def get(self, request, name: str):
        return Response(BotSerializer(access_bot(request.user, name), context={"request": request}).data)

    @extend_schema(request=BotUpdateSerializer, responses=BotSerializer,
                   summary="Change my bot (name, description, presets; active=false deactivates)")
    def patch(self, request, name: str):
        bot = access_bot(request.user, name, for_change=True)
        reject_unknown_fields(BotUpdateSerializer, request.data)
        form = BotUpdateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        open_data = form.validated_data.pop("open_data", None)
        do_update_bot(bot, **form.validated_data)
        set_open_data(bot, open_data)
        return Response(BotSerializer(bot, context={"request": request}).data)

    @extend_schema(request=None, responses={204: None, 400: error_response("a house bot (built in) cannot be deleted"),
                                            404: error_response("no bot of yours by that name, or deleted already")},
                   summary="Delete my bot (a tombstone: its matches, ratings history and name stay)")
    def delete(self, request, name: str):
        do_delete_bot(access_bot(request.user, name, for_change=True))
        return Response(status=status.HTTP_204_NO_CONTENT)


class VersionListView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]
    parser_classes = [MultiPartParser]  # a file cannot travel in a urlencoded form (nor, here, in JSON)

    @extend_schema(responses=VersionSerializer(many=True), summary="A bot's versions, newest first")
    def get(self, request, name: str):
        bot = access_bot(request.user, name)
        versions = bot.versions.select_related("bot").prefetch_related(validation_links()).order_by("-number")
        return Response(VersionSerializer(versions, many=True, context={"request": request}).data)

    @extend_schema(request=UploadSerializer, responses={
        201: VersionSerializer, 429: error_response("too many uploads: retry after `retry_after_seconds`")},
                   summary="Upload a new version (multipart field 'file'); it is validated by a short match")
    def post(self, request, name: str):
        try:  # every attempt counts, refused ones too (or the checks become a free oracle); shared with the pages
            limits.spend(limits.uploads(), request.user.pk)
        except RateLimited as err:
            raise throttled(err) from None
        bot = access_bot(request.user, name, for_change=True)
        reject_unknown_fields(UploadSerializer, request.data)
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": ["no file: send the bot as the multipart field 'file'"]})
        data = read_limited(upload.chunks(), max_upload_bytes())
        version = do_upload_version(bot, check_upload(upload.name, data))
        return Response(VersionSerializer(version, context={"request": request}).data, status=status.HTTP_201_CREATED)


class VersionDetailView(ApiView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=VersionSerializer, summary="One version and its validation status")
    def get(self, request, name: str, number: int):
        bot = access_bot(request.user, name)
        return Response(VersionSerializer(access_version(request.user, bot, number),
                                          context={"request": request}).data)


class VersionRetireView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=VersionSerializer, summary="Retire a version (never scheduled again)")
    def post(self, request, name: str, number: int):
        bot = access_bot(request.user, name, for_change=True)
        version = access_version(request.user, bot, number)
        do_retire_version(version)
        return Response(VersionSerializer(version, context={"request": request}).data)


class VersionDownloadView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
                   summary="Download a version's file (its owner and staff only)")
    def get(self, request, name: str, number: int):
        bot = access_bot(request.user, name)
        if not can_see_private(request.user, bot):
            raise NotFound("no such bot")
        version = access_version(request.user, bot, number)
        if version.builtin:
            raise NotFound("a house bot's version is built in; it has no file")
        if version.is_remote:
            raise NotFound("a remote version runs on its owner's machine; it has no file")
        response = HttpResponse(blobs.get("bots", version.sha256), content_type="application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="{version.filename}"'
        return response
