"""The API of remote bots: make a remote version (its token shown once), see its connections, revoke tokens.

The connection itself is a websocket (matches/relay_socket.py); this is what its owner does around it.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import limits
from accounts.limits import RateLimited, throttled
from api.bots import VersionSerializer
from api.schema import ApiView
from bots import remote as remote_bots
from bots.access import access_bot
from bots.actions import BotError
from bots.models import RemoteConnection, RemoteToken


def connect_command(request, bot_name: str, token: str) -> str:
    return remote_bots.connect_command(request.build_absolute_uri("/"), bot_name, token)


class RemoteConnectionSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number", read_only=True)

    class Meta:
        model = RemoteConnection
        fields = ["id", "version", "opened", "seen", "max_matches", "rtt_p95_ms", "rtt_samples"]
        read_only_fields = fields


class RemoteTokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = RemoteToken
        fields = ["prefix", "created", "last_used", "revoked"]
        read_only_fields = fields


MADE = inline_serializer("RemoteVersionMade", {
    "version": VersionSerializer(),
    "token": serializers.CharField(help_text="shown this once; only its digest is kept"),
    "connect": serializers.CharField(help_text="the command that plays it from your machine")})
STATE = inline_serializer("RemoteState", {
    "connections": RemoteConnectionSerializer(many=True), "tokens": RemoteTokenSerializer(many=True),
    "allowance_ms": serializers.IntegerField(help_text="what its seats' clocks get now for the network")})


class RemoteView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=STATE, summary="The bot's open remote connections and its tokens (owner only)")
    def get(self, request, name: str):
        bot = access_bot(request.user, name, for_change=True)
        version = remote_bots.remote_version(bot)
        return Response({"connections": RemoteConnectionSerializer(remote_bots.open_connections(bot), many=True).data,
                         "tokens": RemoteTokenSerializer(bot.remote_tokens.all()[:50], many=True).data,
                         "allowance_ms": remote_bots.allowance_ms(version.pk) if version else None})

    @extend_schema(request=None, responses={201: MADE},
                   summary="Make a remote version: played from your machine with `arena connect` and its token")
    def post(self, request, name: str):
        try:  # a remote version is a version: the uploads' rate limit counts it
            limits.spend(limits.uploads(), request.user.pk)
        except RateLimited as err:
            raise throttled(err) from None
        bot = access_bot(request.user, name, for_change=True)
        version, token = remote_bots.do_make_remote_version(bot)
        return Response({"version": VersionSerializer(version, context={"request": request}).data, "token": token,
                         "connect": connect_command(request, bot.name, token)}, status=status.HTTP_201_CREATED)


class RemoteRevokeView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=inline_serializer("RemoteRevoked", {"revoked": serializers.IntegerField()}),
                   summary="Revoke every remote token of the bot; its connections close within seconds")
    def post(self, request, name: str):
        bot = access_bot(request.user, name, for_change=True)
        return Response({"revoked": remote_bots.revoke_tokens(bot)})


class RemoteTokenView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: inline_serializer("RemoteTokenMade", {
        "token": serializers.CharField(), "connect": serializers.CharField()})},
                   summary="A new token for the bot's remote versions (shown once)")
    def post(self, request, name: str):
        bot = access_bot(request.user, name, for_change=True)
        if bot.is_house:
            raise BotError("house bots are built in and have no remote versions")
        token = remote_bots.issue_token(bot)
        return Response({"token": token, "connect": connect_command(request, bot.name, token)},
                        status=status.HTTP_201_CREATED)
