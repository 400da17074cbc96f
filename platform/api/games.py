"""The games and presets Kozyr hosts, with every rule option, straight from the arena registry."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.games import GAME_MODULES, all_presets
from arena.games.options import describe

OPTION = inline_serializer("RuleOption", many=True, fields={
    "name": serializers.CharField(), "value": serializers.JSONField(), "allowed": serializers.CharField(),
    "source": serializers.CharField(), "doc": serializers.CharField()})
PRESET_FIELDS = {"name": serializers.CharField(), "game": serializers.CharField(),
                                      "seats": serializers.IntegerField(),
                                      "teams": serializers.ListField(child=serializers.ListField()),
                                      "options": OPTION}
PRESET = inline_serializer("Preset", fields=PRESET_FIELDS)
PRESETS = inline_serializer("PresetList", many=True, fields=PRESET_FIELDS)
GAMES = inline_serializer("Game", many=True, fields={"name": serializers.CharField(),
                                                    "presets": serializers.ListField(child=serializers.CharField())})


def preset_info(name: str) -> dict:
    from arena.games.seating import layout

    game, rules = all_presets()[name]
    seats, teams = layout(name, {})
    return {"name": name, "game": game, "seats": seats, "teams": teams,
            "options": [{**row, "value": row["value"]} for row in describe(rules)]}


class GameListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=GAMES, summary="Games and their presets")
    def get(self, request):
        presets = all_presets()
        return Response([{"name": game, "presets": [p for p, (g, _) in presets.items() if g == game]}
                         for game in GAME_MODULES])


class PresetListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PRESETS, summary="Every preset with its rule options")
    def get(self, request):
        return Response([preset_info(name) for name in all_presets()])


class PresetDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PRESET, summary="One preset with its rule options")
    def get(self, request, name: str):
        if name not in all_presets():
            raise NotFound(f"no preset {name!r}")
        return Response(preset_info(name))
