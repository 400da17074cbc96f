"""The games and presets Kozyr hosts, with every rule option, straight from the arena registry."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import ApiView
from arena.games import GAME_MODULES, all_presets
from arena.games.options import describe


class RuleOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    value = serializers.JSONField(help_text="the option's value in this preset (a number, text or true/false)")
    allowed = serializers.CharField(help_text="the values it may take")
    source = serializers.CharField(help_text="where the rule comes from")
    doc = serializers.CharField(help_text="what the option means")


class PresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    game = serializers.CharField()
    seats = serializers.IntegerField()
    teams = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()),
                                  help_text="the seats of each side")
    options = RuleOptionSerializer(many=True)


class GameSerializer(serializers.Serializer):
    name = serializers.CharField()
    presets = serializers.ListField(child=serializers.CharField())


def preset_info(name: str) -> dict:
    from arena.games.seating import layout

    game, rules = all_presets()[name]
    seats, teams = layout(name, {})
    return {"name": name, "game": game, "seats": seats, "teams": teams,
            "options": [{**row, "value": row["value"]} for row in describe(rules)]}


class GameListView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=GameSerializer(many=True), summary="Games and their presets")
    def get(self, request):
        presets = all_presets()
        return Response(GameSerializer([{"name": game, "presets": [p for p, (g, _) in presets.items() if g == game]}
                                        for game in GAME_MODULES], many=True).data)


class PresetListView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PresetSerializer(many=True), summary="Every preset with its rule options")
    def get(self, request):
        return Response(PresetSerializer([preset_info(name) for name in all_presets()], many=True).data)


class PresetDetailView(ApiView, APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PresetSerializer, summary="One preset with its rule options")
    def get(self, request, name: str):
        if name not in all_presets():
            raise NotFound(f"no preset {name!r}")
        return Response(PresetSerializer(preset_info(name)).data)
