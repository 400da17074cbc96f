"""The OpenAPI schema as other programs read it: every view mixes in :class:`ApiView` first, so its bodies
are JSON only (unless it names its own parsers) and its schema lists the error answers it can give, each
with the one error body (config.api)."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework.authentication import SessionAuthentication
from rest_framework.mixins import ListModelMixin
from rest_framework.parsers import JSONParser
from rest_framework.permissions import SAFE_METHODS, AllowAny, IsAuthenticatedOrReadOnly

from config.api import ErrorBodySerializer


def error_response(description: str) -> OpenApiResponse:
    """An error answer for ``extend_schema(responses={status: …})``, where the schema's own guess (see
    :class:`ApiSchema`) would say too little or the view refuses by hand (a rate limit of its own)."""
    return OpenApiResponse(ErrorBodySerializer, description=description)


class ApiSchema(AutoSchema):
    """drf-spectacular's schema of a view, plus the error statuses it can answer, each with the error body.

    What the view declares in ``extend_schema(responses=…)`` wins; the rest follows from the view: a body
    (400, 413, 415) or a filtered list (400), credentials (401, on every endpoint: a token that is sent is
    checked even where none is needed), a write under session sign-in (403: CSRF, an account's cap), a path
    naming an object or a paginated list (404), a throttle (429)."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code, description in self.error_statuses().items():
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(error_response(description), str(code),
                                                                   direction=direction)
        return responses

    def error_statuses(self) -> dict[int, str]:
        found: dict[int, str] = {}
        body = self.method in ("POST", "PUT", "PATCH") and self.get_request_serializer() is not None
        listing = self.method == "GET" and isinstance(self.view, ListModelMixin)
        filtered = listing and bool(getattr(self.view, "filterset_class", None)
                                    or getattr(self.view, "filterset_fields", None))
        if body or filtered:
            found[400] = "invalid input: `fields` names each input at fault"
        if self._anonymous_allowed():
            found[401] = "the token sent is wrong, expired or revoked (send none to read as a visitor)"
        else:
            found[401] = "not signed in, or the token is wrong, expired or revoked"
        sessions = any(issubclass(type(auth), SessionAuthentication) for auth in self.view.get_authenticators())
        if self.method not in SAFE_METHODS and sessions:
            found[403] = "refused: a cap of the account is reached, or a session's CSRF check failed"
        if "{" in self.path:  # a path parameter names an object
            found[404] = "no such object, or not one you may see"
        elif listing and self._get_paginator() is not None:
            found[404] = "no such page"
        if body:
            found[413] = "the request body is larger than the limit"
            found[415] = "the body is not of a media type this endpoint takes"
        if self.view.get_throttles():
            found[429] = "too many requests: retry after `retry_after_seconds`"
        return found

    def _anonymous_allowed(self) -> bool:
        permissions = [type(p) for p in self.view.get_permissions()]
        return AllowAny in permissions or (IsAuthenticatedOrReadOnly in permissions and self.method in SAFE_METHODS)


# Mixed in first by every API view: bodies are JSON only (a view taking files names its own parsers), and the
# schema documents the error answers (ApiSchema). No docstring: drf-spectacular would show it as the
# description of every view that has none of its own.
class ApiView:
    parser_classes = [JSONParser]
    schema = ApiSchema()
